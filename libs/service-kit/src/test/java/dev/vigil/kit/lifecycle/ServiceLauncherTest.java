package dev.vigil.kit.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.kit.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ServiceLauncherTest {
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();
  private final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);

  @Test
  void invalidConfigurationIsExplainedWithoutAStackTrace() {
    Object service =
        ServiceLauncher.startOrExplain(
            () -> {
              throw new ConfigException("invalid configuration: VIGIL_DB_URL is required");
            },
            errStream);

    assertThat(service).isNull();
    assertThat(err.toString(StandardCharsets.UTF_8))
        .isEqualTo("invalid configuration: VIGIL_DB_URL is required" + System.lineSeparator());
  }

  @Test
  void aStartedServiceIsReturned() {
    assertThat(ServiceLauncher.startOrExplain(() -> "running", errStream)).isEqualTo("running");
    assertThat(err.size()).isZero();
  }

  @Test
  void anyOtherStartFailurePropagates() {
    assertThatThrownBy(
            () ->
                ServiceLauncher.startOrExplain(
                    () -> {
                      throw new IllegalStateException("port in use");
                    },
                    errStream))
        .hasMessage("port in use");
  }
}
