package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.drills.reconcile.DrillCounts;
import dev.vigil.drills.reconcile.FaultRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  private static final DrillCounts CLEAN =
      new DrillCounts(100, 10, 0, 103, 3, 0, 0, 100, 100, 0, 100, 0, 0, 0, 3, false);

  /** Exactly-once drill: 7 records of aborted transactions, none for read_committed readers. */
  private static final DrillCounts EXACTLY_ONCE =
      new DrillCounts(100, 10, 0, 100, 0, 0, 0, 100, 100, 0, 100, 0, 0, 0, 7, true);

  private static final DrillCounts EXACTLY_ONCE_DUPLICATE =
      new DrillCounts(100, 10, 0, 101, 1, 0, 0, 100, 100, 0, 100, 0, 0, 0, 1, true);
  private static final DrillCounts ONE_LOST =
      new DrillCounts(100, 10, 0, 100, 0, 0, 0, 99, 99, 0, 99, 0, 1, 0, 0, false);

  private static DrillResult result(String name, DrillCounts counts, String error) {
    return new DrillResult(
        name,
        "a drill",
        counts,
        List.of(new FaultRecord("kill -9 relay-1", 1500, 20, 137, 4200, -1)),
        2,
        60_000,
        1_200,
        Map.of("PASS", 100L),
        List.of("relay-1 had exited by itself"),
        error);
  }

  @Test
  void markdownHasOneFullRowPerDrillAndSaysFailWhenOneDrillFailed(@TempDir Path dir)
      throws Exception {
    List<DrillResult> results =
        List.of(
            result("clean", CLEAN, null),
            result("lossy", ONE_LOST, null),
            result("broken", null, "IllegalStateException: no relay streaming"));

    Report.write(
        dir,
        "RESULTS",
        results,
        DrillOptions.quick(),
        "cmd --x",
        Instant.EPOCH,
        42,
        "commit `abc1234`");

    String md = Files.readString(dir.resolve("RESULTS.md"));
    assertThat(md)
        .contains("Overall: **FAIL**")
        .contains("cmd --x")
        .contains("Code under test: commit `abc1234`.");
    List<String> table =
        md.lines().filter(l -> l.startsWith("| drill |") || l.startsWith("|---|---:")).toList();
    assertThat(table).hasSize(2);
    for (String line : table) {
      assertThat(line.chars().filter(c -> c == '|').count()).as(line).isEqualTo(20);
    }
    List<String> rows =
        md.lines()
            .filter(
                l ->
                    l.startsWith("| clean |")
                        || l.startsWith("| lossy |")
                        || l.startsWith("| broken |"))
            .toList();
    assertThat(rows).hasSize(3);
    for (String row : rows) {
      assertThat(row.chars().filter(c -> c == '|').count()).isEqualTo(20);
    }
    assertThat(rows.get(0)).endsWith("| 4.2/n/a | 1200 | PASS |");
    assertThat(rows.get(1)).endsWith("FAIL |");
    assertThat(md).contains("| 1 | kill -9 relay-1 | 1.5 | 20 | 137 | 4200 | n/a |");
    String json = Files.readString(dir.resolve("RESULTS.json"));
    assertThat(json).contains("\"passed\" : false").contains("\"sigkills\" : 1");
  }

  @Test
  void aRunOfSomeDrillsReplacesTheirRowsAndKeepsTheOthersWithTheRunTheyCameFrom(@TempDir Path dir)
      throws Exception {
    DrillOptions full = DrillOptions.full();
    Report.write(
        dir,
        "RESULTS",
        List.of(result("a", EXACTLY_ONCE, null), result("b", ONE_LOST, null)),
        full,
        "first run",
        Instant.EPOCH,
        10,
        "commit `abc1234`");

    DrillOptions some = full.onlyDrills(List.of("b", "c"));
    // Written after each drill of the run, so twice here: nothing is kept twice.
    for (int written = 0; written < 2; written++) {
      Report.write(
          dir,
          "RESULTS",
          List.of(result("b", EXACTLY_ONCE, null), result("c", EXACTLY_ONCE, null)),
          some,
          "second run",
          Instant.EPOCH.plusSeconds(60),
          5,
          "commit `abc1234`");
    }

    String md = Files.readString(dir.resolve("RESULTS.md"));
    assertThat(md.lines().filter(l -> l.matches("\\| [abc] \\|.*")).toList())
        .hasSize(3)
        .allMatch(l -> l.endsWith("PASS |"));
    assertThat(md)
        .contains("Overall: **PASS**")
        .contains("This run: b, c.")
        .contains("- a: run at 1970-01-01T00:00:00Z, took 10 s")
        .contains("`first run`");
    String json = Files.readString(dir.resolve("RESULTS.json"));
    assertThat(json).contains("\"earlierRuns\"").contains("\"command\" : \"first run\"");

    // A run of every drill replaces the report.
    Report.write(
        dir,
        "RESULTS",
        List.of(result("c", EXACTLY_ONCE, null)),
        full,
        "all",
        Instant.EPOCH,
        1,
        "commit `abc1234`");
    assertThat(Files.readString(dir.resolve("RESULTS.md")))
        .doesNotContain("| a |")
        .doesNotContain("kept from earlier runs");
  }

  @Test
  void exactlyOnceDrillsFailOnAReadCommittedDuplicateAndShowBothIsolationLevels(@TempDir Path dir)
      throws Exception {
    assertThat(EXACTLY_ONCE.passed()).isTrue();
    assertThat(EXACTLY_ONCE_DUPLICATE.passed()).isFalse();
    assertThat(CLEAN.passed()).as("at-least-once criterion: duplicates allowed").isTrue();

    Report.write(
        dir,
        "RESULTS",
        List.of(result("eo", EXACTLY_ONCE, null), result("eo-dup", EXACTLY_ONCE_DUPLICATE, null)),
        DrillOptions.quick(),
        "cmd",
        Instant.EPOCH,
        1,
        "commit `abc1234`");

    String md = Files.readString(dir.resolve("RESULTS.md"));
    assertThat(md).contains("| dup read_committed | dup read_uncommitted |");
    assertThat(md).contains("| eo | 100 | 10 | 100 | 0 | 7 | 0 |");
    assertThat(md.lines().filter(l -> l.startsWith("| eo-dup |")).findFirst().orElseThrow())
        .endsWith("FAIL |");
    assertThat(Files.readString(dir.resolve("RESULTS.json")))
        .contains("\"kafkaDuplicatesReadUncommitted\" : 7");
  }

  @Test
  void lineNamesTheVerdictAndTheCounts() {
    assertThat(Report.line(result("clean", CLEAN, null)))
        .startsWith("clean PASS committed=100")
        .contains("kafkaDuplicates=3")
        .contains("lost=0");
    assertThat(Report.line(result("lossy", ONE_LOST, null))).contains("FAIL").contains("lost=1");
  }
}
