package dev.vigil.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MonitorMainTest {

  @Test
  void badConfigurationPrintsEveryProblemAndExitsWithTwo()
      throws IOException, InterruptedException {
    ProcessBuilder builder =
        new ProcessBuilder(
            ProcessHandle.current().info().command().orElseThrow(),
            "-cp",
            System.getProperty("java.class.path"),
            MonitorMain.class.getName());
    builder.environment().keySet().removeIf(key -> key.startsWith("VIGIL_"));
    builder.environment().put("VIGIL_MONITOR_API_TOKEN", "tiny");
    builder.environment().put("VIGIL_HTTP_PORT", "99999");
    builder.redirectErrorStream(true);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();

    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(output).contains("VIGIL_DB_URL", "VIGIL_HTTP_PORT", "VIGIL_MONITOR_API_TOKEN");
    assertThat(output).doesNotContain("tiny");
  }
}
