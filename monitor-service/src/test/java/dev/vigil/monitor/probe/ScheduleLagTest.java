package dev.vigil.monitor.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

class ScheduleLagTest {

  @Test
  void isNotANumberWhileTheDatabaseDoesNotAnswer() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    PGSimpleDataSource unreachable = new PGSimpleDataSource();
    unreachable.setURL("jdbc:postgresql://127.0.0.1:" + closedPort + "/vigil");
    unreachable.setConnectTimeout(2);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();

    ScheduleLag lag = new ScheduleLag(unreachable, registry);

    assertThat(registry.get(ScheduleLag.METRIC).gauge().value()).as("before any sample").isNaN();
    assertThat(lag.sample()).isNaN();
    assertThat(registry.get(ScheduleLag.METRIC).gauge().value()).isNaN();
  }
}
