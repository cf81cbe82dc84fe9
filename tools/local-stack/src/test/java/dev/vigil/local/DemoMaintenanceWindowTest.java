package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.monitor.targets.TargetFile;
import dev.vigil.monitor.targets.TargetSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo target {@code maintenance} is always in its window, in the local stack and compose. */
class DemoMaintenanceWindowTest {
  private static final List<Instant> SAMPLES =
      List.of(
          Instant.parse("2026-03-29T01:30:00Z"),
          Instant.parse("2026-10-25T00:59:59Z"),
          Instant.parse("2026-12-31T23:59:59Z"),
          Instant.parse("2027-01-04T00:00:00Z"));

  @Test
  void composeTargetsGiveMaintenanceAWindowCoveringEveryInstant() {
    assertAlwaysInWindow(TargetFile.load(Path.of("compose/targets.yaml")));
  }

  @Test
  void localStackTargetsGiveMaintenanceAWindowCoveringEveryInstant(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("targets.yaml");
    Files.writeString(
        file,
        "targets:\n  - name: maintenance\n    url: http://127.0.0.1:1/maintenance\n"
            + LocalStack.MAINTENANCE_WINDOW);
    assertAlwaysInWindow(TargetFile.load(file));
  }

  private static void assertAlwaysInWindow(List<TargetSpec> targets) {
    TargetSpec maintenance =
        targets.stream().filter(t -> t.name().equals("maintenance")).findFirst().orElseThrow();
    assertThat(maintenance.maintenance()).hasSize(1);
    for (Instant at : SAMPLES) {
      assertThat(maintenance.maintenance().get(0).coveringEnd(at)).as(at.toString()).isPresent();
    }
    assertThat(targets.stream().filter(t -> !t.name().equals("maintenance")))
        .allSatisfy(t -> assertThat(t.maintenance()).isEmpty());
  }
}
