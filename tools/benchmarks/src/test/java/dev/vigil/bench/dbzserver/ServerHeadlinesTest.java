package dev.vigil.bench.dbzserver;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.bench.BenchOptions;
import dev.vigil.bench.Headline;
import dev.vigil.bench.Report;
import dev.vigil.bench.Result;
import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class ServerHeadlinesTest {
  private final Report report =
      new Report("bench", BenchOptions.parse("--quick", "--suites=debezium-server"));

  private void add(String variant, Map<String, Double> metrics) {
    report.add(Result.of(DebeziumServerSuite.NAME, variant, List.of(metrics), ""));
  }

  private Headline headline(String startsWith) {
    return report.headlines().stream()
        .filter(h -> h.name().startsWith(startsWith))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void ratiosAreVigilOverDebeziumServerOfTheSameRun() {
    add("vigil process backlog", Map.of("events_per_s", 30_000.0));
    add("vigil backlog", Map.of("events_per_s", 50_000.0));
    add("ds poll 10ms backlog", Map.of("events_per_s", 10_000.0));
    add("vigil saturation", Map.of("x_limit", 0.8));
    add("ds default saturation", Map.of("x_limit", 0.5));
    add("ds poll 10ms saturation", Map.of("x_limit", 0.7));
    add("vigil @1000/s", Map.of("p99_ms", 60.0));
    add("vigil process @1000/s", Map.of("p99_ms", 15.0));
    add("ds poll 10ms @1000/s", Map.of("p99_ms", 30.0));
    add("ds default @1000/s", Map.of("p99_ms", 900.0));

    // the aim compares two restarted processes; the warm in-JVM restart is context
    assertThat(headline("catch-up: Vigil / Debezium Server").value()).isEqualTo(3.0);
    assertThat(headline("catch-up: Vigil / Debezium Server").met()).isTrue();
    assertThat(headline("catch-up: Vigil restarted in the warm").value()).isEqualTo(5.0);
    // against the better of the two servers (0.7), not the worse
    assertThat(headline("live, 8 unpaced writers: Vigil / best").value())
        .isCloseTo(0.8 / 0.7, Offset.offset(1e-9));
    assertThat(headline("live, 8 unpaced writers: Vigil / best").met()).isFalse();
    assertThat(headline("live, 8 unpaced writers: Vigil delivered").met()).isFalse();
    // the aim compares the two processes; the in-JVM relay is context
    assertThat(
            headline("p99 commit → broker append at 1,000/s: Vigil / Debezium Server poll").value())
        .isEqualTo(0.5);
    assertThat(headline("p99 commit → broker append at 1,000/s: Vigil in the benchmark").value())
        .isEqualTo(2.0);
    Headline vsDefaults =
        headline("p99 commit → broker append at 1,000/s: Vigil / Debezium Server def");
    assertThat(vsDefaults.value()).isCloseTo(15.0 / 900, Offset.offset(1e-9));
    assertThat(vsDefaults.met()).isTrue(); // ≤ 1/20
  }

  @Test
  void missingRowsAreNotMeasuredRatherThanMetOrMissed() {
    add("vigil process backlog", Map.of("events_per_s", 30_000.0));

    Headline catchUp = headline("catch-up: Vigil / Debezium Server");
    assertThat(catchUp.value()).isNaN();
    assertThat(catchUp.met()).isNull();
  }
}
