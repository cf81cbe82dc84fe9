package dev.vigil.drills.stack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServiceProcessTest {

  @Test
  void kill9EndsTheProcessWithSigkillAndItCanBeStartedAgain(@TempDir Path logs) throws Exception {
    ServiceProcess process =
        new ServiceProcess(
            "sleeper",
            SleeperMain.class.getName(),
            Map.of("VIGIL_DRILL_MARKER", "m-1"),
            0,
            logs,
            List.of("-Xmx32m"));
    process.start();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> Files.readString(process.logFile()).contains("sleeper up, marker=m-1"));
    long firstPid = process.pid();

    int exit = process.kill9();

    assertThat(exit).isEqualTo(ServiceProcess.SIGKILL_EXIT);
    assertThat(process.isAlive()).isFalse();
    assertThat(process.wanted()).isTrue();
    assertThat(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();

    process.start();
    assertThat(process.pid()).isNotEqualTo(firstPid);
    assertThat(process.stop()).isNotEqualTo(ServiceProcess.SIGKILL_EXIT);
    assertThat(process.wanted()).isFalse();
  }
}
