package dev.vigil.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Everything one run measured, and its three renderings: the table on stdout, report.json and the
 * markdown report.
 */
public final class Report {
  /** Columns every result shows in the table; any other metric goes to the "other" column. */
  private static final List<String> COLUMNS = List.of("events_per_s", "p50_ms", "p95_ms", "p99_ms");

  private final String command;
  private final BenchOptions options;
  private final List<Result> results = new CopyOnWriteArrayList<>();
  private final List<String> notes = new CopyOnWriteArrayList<>();
  private MachineFacts facts;

  public Report(String command, BenchOptions options) {
    this.command = command;
    this.options = options;
  }

  public void facts(MachineFacts facts) {
    this.facts = facts;
  }

  /** Adds a result and prints its row at once, so a long run shows progress. */
  public void add(Result result) {
    results.add(result);
    System.out.println(row(result));
    System.out.flush();
  }

  /** A line for the report's notes: a skipped suite, a method detail, a bottleneck seen. */
  public void note(String note) {
    notes.add(note);
    System.out.println("note: " + note);
  }

  public List<Result> results() {
    return List.copyOf(results);
  }

  public Optional<Result> find(String suite, String variant) {
    return results.stream()
        .filter(r -> r.suite().equals(suite) && r.variant().equals(variant))
        .findFirst();
  }

  public double metric(String suite, String variant, String metric) {
    return find(suite, variant).map(r -> r.get(metric)).orElse(Double.NaN);
  }

  /** The headline figures computed from the results so far. */
  public List<Headline> headlines() {
    return Headlines.compute(this);
  }

  /** Prints the full table and the headlines. */
  public void printTable(PrintStream out) {
    out.println();
    out.println(header());
    results.forEach(r -> out.println(row(r)));
    out.println();
    headlines()
        .forEach(
            h ->
                out.printf(
                    "%-55s %12s %-10s aim %-16s %s%n",
                    h.name(), Headline.format(h.value()), h.unit(), h.aim(), h.verdict()));
  }

  private static String header() {
    return String.format(
        "%-10s %-34s %12s %9s %9s %9s  %s",
        "suite", "case", "events/s", "p50 ms", "p95 ms", "p99 ms", "other");
  }

  private static String row(Result r) {
    return String.format("%-10s %-34s %12s %9s %9s %9s  %s", cells(r));
  }

  /** A result's cells: suite, case, events/s, p50, p95, p99 and the other metrics as k=v. */
  private static Object[] cells(Result r) {
    StringBuilder other = new StringBuilder();
    r.metrics()
        .forEach(
            (k, v) -> {
              if (!COLUMNS.contains(k)) {
                other.append(k).append('=').append(Headline.format(v)).append(' ');
              }
            });
    return new Object[] {
      r.suite(),
      r.variant(),
      Headline.format(r.get("events_per_s")),
      Headline.format(r.get("p50_ms")),
      Headline.format(r.get("p95_ms")),
      Headline.format(r.get("p99_ms")),
      other.toString().trim()
    };
  }

  /** Writes report.json and report.md into {@code dir}, and the markdown also to {@code extra}. */
  public void write(Path dir, Path extra) {
    try {
      Files.createDirectories(dir);
      ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
      json.writeValue(dir.resolve("report.json").toFile(), asJson());
      String md = markdown();
      Files.writeString(dir.resolve("report.md"), md);
      if (extra != null) {
        Files.writeString(extra, md + handWritten(extra));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the report to " + dir, e);
    }
  }

  /**
   * The line in a REPORT.md after which the text is written by hand (the analysis of a run): a
   * regenerated report keeps everything from this line on.
   */
  static final String HAND_WRITTEN_MARKER =
      "<!-- hand-written below: kept as it is when the report is regenerated -->";

  /** The hand-written part of an existing report (from its marker on), or nothing. */
  private static String handWritten(Path report) throws IOException {
    if (!Files.isRegularFile(report)) {
      return "";
    }
    String existing = Files.readString(report);
    int at = existing.indexOf(HAND_WRITTEN_MARKER);
    return at < 0 ? "" : "\n" + existing.substring(at);
  }

  Map<String, Object> asJson() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("command", command);
    root.put("quick", options.quick());
    root.put("repetitions", options.repetitions());
    root.put("warmupSeconds", options.warmup().toMillis() / 1000.0);
    root.put("windowSeconds", options.window().toMillis() / 1000.0);
    root.put("machine", facts == null ? Map.of() : facts.asMap());
    List<Map<String, Object>> rs = new ArrayList<>();
    for (Result r : results) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("suite", r.suite());
      m.put("case", r.variant());
      m.put("median", nanToNull(r.metrics()));
      m.put("runs", r.runs().stream().map(Report::nanToNull).toList());
      m.put("note", r.note());
      rs.add(m);
    }
    root.put("results", rs);
    List<Map<String, Object>> hs = new ArrayList<>();
    for (Headline h : headlines()) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", h.name());
      m.put("value", Double.isNaN(h.value()) ? null : h.value());
      m.put("unit", h.unit());
      m.put("aim", h.aim());
      m.put("verdict", h.verdict());
      hs.add(m);
    }
    root.put("headlines", hs);
    root.put("notes", List.copyOf(notes));
    return root;
  }

  private static Map<String, Object> nanToNull(Map<String, Double> metrics) {
    Map<String, Object> m = new LinkedHashMap<>();
    metrics.forEach((k, v) -> m.put(k, v == null || v.isNaN() || v.isInfinite() ? null : v));
    return m;
  }

  String markdown() {
    StringBuilder md = new StringBuilder();
    md.append("# Vigil benchmark report\n\n");
    if (options.quick()) {
      md.append("> **Quick smoke run** (one repetition, short windows): not a measurement.\n\n");
    }
    md.append("Command:\n\n```\n").append(command).append("\n```\n\n");
    md.append("## Machine\n\n");
    if (facts != null) {
      facts
          .asMap()
          .forEach((k, v) -> md.append("- ").append(k).append(": ").append(v).append('\n'));
    }
    md.append(
        "- method: %d repetition(s) of every case, median reported; %.1f s warm-up, %.1f s window\n"
            .formatted(
                options.repetitions(),
                options.warmup().toMillis() / 1000.0,
                options.window().toMillis() / 1000.0));
    md.append("\n## Headlines (ratios to baselines measured in this run)\n\n");
    md.append("| figure | measured | aim | verdict |\n|---|---:|---|---|\n");
    for (Headline h : headlines()) {
      md.append(
          "| %s | %s %s | %s | %s |\n"
              .formatted(h.name(), Headline.format(h.value()), h.unit(), h.aim(), h.verdict()));
    }
    md.append("\n## Results\n\n");
    md.append("| suite | case | events/s | p50 ms | p95 ms | p99 ms | other | note |\n");
    md.append("|---|---|---:|---:|---:|---:|---|---|\n");
    for (Result r : results) {
      md.append("| %s | %s | %s | %s | %s | %s | %s | ".formatted(cells(r)))
          .append(r.note() == null ? "" : r.note())
          .append(" |\n");
    }
    md.append('\n').append(Method.TEXT);
    if (!notes.isEmpty()) {
      md.append("\n## Notes from the run\n\n");
      notes.forEach(n -> md.append("- ").append(n).append('\n'));
    }
    return md.toString();
  }
}
