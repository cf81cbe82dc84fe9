package dev.vigil.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
  @TempDir Path dir;

  @Test
  void medianOfEachMetricIsReportedWithEveryRun() {
    Result r =
        Result.of(
            "relay",
            "vigil @1000/s",
            List.of(
                Map.of("events_per_s", 3.0, "p99_ms", 10.0),
                Map.of("events_per_s", 1.0, "p99_ms", 30.0),
                Map.of("events_per_s", 2.0, "p99_ms", 20.0)),
            "");
    assertThat(r.get("events_per_s")).isEqualTo(2.0);
    assertThat(r.get("p99_ms")).isEqualTo(20.0);
    assertThat(r.runs()).hasSize(3);
    assertThat(Result.median(List.of(1.0, 4.0))).isEqualTo(2.5);
  }

  @Test
  void writesJsonAndMarkdownWithResultsHeadlinesAndNotes() throws Exception {
    BenchOptions options = BenchOptions.parse(new String[] {"--quick", "--suites=limit,relay"});
    Report report = new Report("java -jar benchmarks.jar --quick", options);
    report.add(
        Result.of(Cases.LIMIT, Cases.LIMIT_CASE, List.of(Map.of("events_per_s", 5000.0)), "x"));
    report.add(
        Result.of(
            "relay",
            "vigil saturation",
            List.of(Map.of("events_per_s", 4600.0, "x_limit", 0.92)),
            "y"));
    report.note("suite 'probing' is not in this build: no numbers for it");
    Path md = dir.resolve("REPORT.md");
    report.write(dir, md);

    JsonNode json = new ObjectMapper().readTree(dir.resolve("report.json").toFile());
    assertThat(json.get("quick").asBoolean()).isTrue();
    assertThat(json.get("results")).hasSize(2);
    assertThat(json.get("results").get(1).get("median").get("events_per_s").asDouble())
        .isEqualTo(4600.0);
    JsonNode ratio = json.get("headlines").get(1);
    assertThat(ratio.get("name").asText())
        .isEqualTo(
            "relay with writers unpaced (same cores): delivered / limit measured just before");
    assertThat(ratio.get("value").asDouble()).isEqualTo(0.92);
    assertThat(ratio.get("verdict").asText()).isEqualTo("met");
    assertThat(json.get("notes").get(0).asText()).contains("probing");

    String markdown = Files.readString(md);
    assertThat(markdown)
        .contains("Quick smoke run")
        .contains("| relay | vigil saturation | 4,600 |")
        .contains(
            "| relay with writers unpaced (same cores): delivered / limit measured just before"
                + " | 0.92 x | ≥ 0.90 x | met |")
        .contains("| notifier deliveries | – deliveries/s | ≥ 2,000 deliveries/s | not measured |");
  }

  @Test
  void regeneratingAReportKeepsItsHandWrittenPartAndReplacesTheRest() throws Exception {
    Path md = dir.resolve("REPORT.md");
    String analysis =
        Report.HAND_WRITTEN_MARKER + "\n\n## Analysis of this run\n\nThe relay was CPU-bound.\n";
    Files.writeString(md, "# Vigil benchmark report\n\n| relay | old numbers |\n\n" + analysis);
    Report report =
        new Report("java -jar benchmarks.jar", BenchOptions.parse(new String[] {"--quick"}));
    report.add(
        Result.of(Cases.LIMIT, Cases.LIMIT_CASE, List.of(Map.of("events_per_s", 5000.0)), "x"));

    report.write(dir, md);

    String regenerated = Files.readString(md);
    assertThat(regenerated)
        .doesNotContain("old numbers")
        .contains("| limit | outbox rows, 16 writers | 5,000 |")
        .endsWith(analysis);
    assertThat(Files.readString(dir.resolve("report.md"))).doesNotContain("CPU-bound");
  }

  @Test
  void optionsTakeTheirValueAfterEqualsOrSpace() {
    BenchOptions options =
        BenchOptions.parse("--reps", "5", "--window=2.5", "--suites", "e2e,relay");

    assertThat(options.repetitions()).isEqualTo(5);
    assertThat(options.window()).isEqualTo(java.time.Duration.ofMillis(2500));
    assertThat(options.suites()).containsExactly("e2e", "relay");
  }

  @Test
  void helpExitsZeroAndAnUnknownOptionOrBadNumberExitsTwo() {
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine cli = new picocli.CommandLine(new BenchCommand());
    cli.setOut(new java.io.PrintWriter(out, true));
    cli.setErr(new java.io.PrintWriter(err, true));

    assertThat(cli.execute("--help")).isZero();
    assertThat(out.toString()).contains("--quick", "--suites", "idle-outbox", "--backlog");
    assertThat(cli.execute("--repz=3")).isEqualTo(2);
    assertThat(err.toString()).contains("Unknown option: '--repz=3'");
    assertThat(cli.execute("--reps=three")).isEqualTo(2);
    assertThat(cli.execute("--reps=0")).isEqualTo(2);
    assertThat(err.toString()).contains("--reps must be at least 1");
    assertThat(cli.execute("--window=NaN")).isEqualTo(2);
  }

  @Test
  void unknownSuiteIsRefusedWithTheKnownOnes() {
    assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--suites=relay,nope"}))
        .hasMessageContaining("unknown suite 'nope'")
        .hasMessageContaining("limit,polling,relay");
  }
}
