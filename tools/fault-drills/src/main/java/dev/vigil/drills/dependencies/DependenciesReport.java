package dev.vigil.drills.dependencies;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** Writes one dependencies drill's result as Markdown and JSON ({@code <name>.md/.json}). */
public final class DependenciesReport {
  private static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DURATIONS_AS_TIMESTAMPS)
          .enable(SerializationFeature.INDENT_OUTPUT);

  private DependenciesReport() {}

  /** One line per scenario for the console, then the verdict. */
  public static String lines(DependenciesResult result) {
    StringBuilder out = new StringBuilder();
    for (ScenarioResult s : result.scenarios()) {
      out.append(
          "dependencies %s (%s): %s %s%s%n"
              .formatted(
                  s.name(),
                  s.title(),
                  s.passed() ? "PASS" : "FAIL",
                  s.numbers(),
                  s.error() == null ? "" : " (" + s.error() + ")"));
    }
    out.append("dependencies drill: ").append(result.passed() ? "PASS" : "FAIL");
    if (result.error() != null) {
      out.append(" (").append(result.error()).append(")");
    }
    return out.toString();
  }

  static String markdown(DependenciesResult result, String command, String load, String code) {
    DependenciesOptions o = result.options();
    StringBuilder md = new StringBuilder();
    md.append("# Dependencies drill (issue 30)\n\n");
    md.append("Run at ").append(Instant.now()).append(", code under test: ").append(code);
    md.append(". Load average (1/5/15 min) at the end: ").append(load).append(" on ");
    md.append(Runtime.getRuntime().availableProcessors()).append(" cores (shared).\n\n");
    md.append("Command: `").append(command).append("`\n\n");
    md.append(
        ("Gateway: %d children, %d independent services (%d with outages of their own), %d stay"
                + " down; maintenance window over %d services; storm of %d services behind %d"
                + " parents. Probe interval %s, announce interval %s, settle one interval (the"
                + " default). Parents page at failure %d, children and independent services at"
                + " %d. Scenarios %s; %.0f s; the service farm answered %d probes.%n%n")
            .formatted(
                o.children(),
                o.independents(),
                o.failingIndependents(),
                o.stayDown(),
                o.maintenance(),
                o.stormServices(),
                o.stormParents(),
                o.interval(),
                o.announceInterval(),
                DependenciesOptions.PARENT_THRESHOLD,
                DependenciesOptions.CHILD_THRESHOLD,
                o.scenarios().stream().sorted().collect(Collectors.joining(",")),
                result.durationMs() / 1000.0,
                result.probes()));
    md.append("| scenario | result | measured |\n|---|---|---|\n");
    for (ScenarioResult s : result.scenarios()) {
      md.append("| ")
          .append(s.name())
          .append(": ")
          .append(s.title())
          .append(" | **")
          .append(s.passed() ? "PASS" : "FAIL")
          .append("**");
      if (s.error() != null) {
        md.append(" (").append(s.error().replace("|", "/")).append(")");
      }
      md.append(" | ").append(numbers(s.numbers())).append(" |\n");
    }
    md.append("\nResult: **").append(result.passed() ? "PASS" : "FAIL").append("**");
    if (result.error() != null) {
      md.append(" (").append(result.error()).append(")");
    }
    md.append("\n\nPass criteria:\n\n");
    for (ScenarioResult s : result.scenarios()) {
      md.append("- ").append(s.name()).append(": ").append(s.criterion()).append(".\n");
    }
    md.append(
        "\nThe gateway's RECOVERED carries the children still down at that moment: those that"
            + " stay down and those whose own recovery probe has not come yet. Its impact is"
            + " reported (recoveredImpact), and only required to be at least the children that"
            + " stay down.\n");
    return md.toString();
  }

  private static String numbers(Map<String, Object> numbers) {
    Map<String, Object> flat = new LinkedHashMap<>();
    numbers.forEach(
        (k, v) -> {
          if (v instanceof GatewayCounts c) {
            flat.put("gatewayFailed", c.gatewayFailed());
            flat.put("failedImpact", c.failedImpact());
            flat.put("childFailedWhileDown", c.childFailedWhileDown());
            flat.put("held", c.held());
            flat.put("gatewayRecovered", c.gatewayRecovered());
            flat.put("recoveredImpact", c.recoveredImpact());
            flat.put("childFailedAfter", c.childFailedAfter());
            flat.put("independentFailed", c.independentFailed());
            flat.put("independentRecovered", c.independentRecovered());
            flat.put("independentPagedWithoutOutage", c.independentPagedWithoutOutage());
          } else {
            flat.put(k, v);
          }
        });
    return flat.entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue())
        .collect(Collectors.joining(", "));
  }

  /** Writes {@code <baseName>.md} and {@code <baseName>.json} into {@code dir}. */
  public static void write(
      Path dir,
      String baseName,
      DependenciesResult result,
      String command,
      String load,
      String code) {
    try {
      Files.createDirectories(dir);
      Files.writeString(dir.resolve(baseName + ".md"), markdown(result, command, load, code));
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("command", command);
      json.put("code", code);
      json.put("loadAverage", load);
      json.put("cores", Runtime.getRuntime().availableProcessors());
      json.put("passed", result.passed());
      json.put("result", result);
      JSON.writeValue(dir.resolve(baseName + ".json").toFile(), json);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the dependencies report into " + dir, e);
    }
  }
}
