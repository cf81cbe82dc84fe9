package dev.vigil.drills.falsepage;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Locale;

/** Writes one false-page drill's result as Markdown and JSON ({@code false-page-q<quorum>.*}). */
public final class FalsePageReport {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT);

  private FalsePageReport() {}

  static String baseName(FalsePageResult result) {
    return "false-page-q" + result.quorum();
  }

  /** One line for the console. */
  public static String line(FalsePageResult result) {
    PageCount r = result.atReceiver();
    String counts =
        r == null
            ? "no counts"
            : "FAILED %d RECOVERED %d false pages %d (%d targets) missed %d unrecovered %d"
                .formatted(
                    r.failed(),
                    r.recovered(),
                    r.falsePages(),
                    r.falsePageTargets(),
                    r.missed(),
                    r.unrecovered());
    return "false-page quorum=%d targets=%d: %s; cuts %d blips %d kills %d outages %d -> %s%s"
        .formatted(
            result.quorum(),
            result.options().targets(),
            counts,
            result.count("cut"),
            result.count("blip"),
            result.count("kill"),
            result.count("outage"),
            result.passed() ? "PASS" : "FAIL",
            result.error() == null ? "" : " (" + result.error() + ")");
  }

  static String markdown(FalsePageResult result, String command, String load, String code) {
    FalsePageOptions o = result.options();
    StringBuilder md = new StringBuilder();
    md.append("# False-page drill, quorum ").append(result.quorum()).append("\n\n");
    md.append("Run at ")
        .append(Instant.now())
        .append(", code under test: ")
        .append(code)
        .append(". ");
    md.append("Load average (1/5/15 min) at the end: ").append(load).append(".\n\n");
    md.append("Command: `").append(command).append("`\n\n");
    md.append(
        "%d targets, locations %s, quorum %d, %s of faults, interval %s, timeout %s, failure threshold %d, %d real outages of %s, seed %d.\n\n"
            .formatted(
                o.targets(),
                o.locations(),
                result.quorum(),
                o.duration(),
                o.interval(),
                o.timeout(),
                o.failureThreshold(),
                o.outages(),
                o.outageLength(),
                o.seed()));
    md.append(
        "| where | FAILED | RECOVERED | false pages | targets falsely paged | missed | unrecovered |\n");
    md.append("|---|---:|---:|---:|---:|---:|---:|\n");
    row(md, "receiver", result.atReceiver());
    row(md, "outbox", result.atOutbox());
    md.append("\nResult: **").append(result.passed() ? "PASS" : "FAIL").append("**");
    if (result.error() != null) {
      md.append(" (").append(result.error()).append(")");
    }
    md.append(
        " — pass is exactly %d FAILED and %d RECOVERED at the receiver, 0 false pages, 0 missed.\n\n"
            .formatted(o.outages(), o.outages()));
    md.append(
        "Faults: %d cuts, %d blips, %d kills (kill -9), %d outages; the target server answered %d probes. Counted: the events committed after the faults began; %d events of the start-up before them are not part of the verdict.\n\n"
            .formatted(
                result.count("cut"),
                result.count("blip"),
                result.count("kill"),
                result.count("outage"),
                result.probes(),
                result.startupEvents()));
    md.append("| # | fault | at s | length ms | exit |\n|---:|---|---:|---:|---:|\n");
    int n = 1;
    for (FalsePageResult.Executed f : result.faults()) {
      md.append(
          String.format(
              Locale.ROOT,
              "| %d | %s | %.1f | %d | %s |%n",
              n++,
              f.fault(),
              f.atMs() / 1000.0,
              f.lengthMs(),
              f.exitCode() < 0 ? "" : String.valueOf(f.exitCode())));
    }
    return md.toString();
  }

  private static void row(StringBuilder md, String where, PageCount c) {
    if (c == null) {
      md.append("| ").append(where).append(" | – | – | – | – | – | – |\n");
      return;
    }
    md.append(
        "| %s | %d | %d | %d | %d | %d | %d |%n"
            .formatted(
                where,
                c.failed(),
                c.recovered(),
                c.falsePages(),
                c.falsePageTargets(),
                c.missed(),
                c.unrecovered()));
  }

  public static void write(
      Path dir, FalsePageResult result, String command, String load, String code) {
    try {
      Files.createDirectories(dir);
      Files.writeString(
          dir.resolve(baseName(result) + ".md"), markdown(result, command, load, code));
      JSON.writeValue(dir.resolve(baseName(result) + ".json").toFile(), result);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the false-page report into " + dir, e);
    }
  }
}
