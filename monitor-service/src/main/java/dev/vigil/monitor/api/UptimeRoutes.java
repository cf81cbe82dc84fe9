package dev.vigil.monitor.api;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code GET /api/services/{name}/uptime}: uptime and downtime per step of a range, with the
 * incidents overlapping each step; JSON, or CSV (RFC 4180) when the request accepts {@code
 * text/csv}. Maintenance checks are counted apart and never count as UP or DOWN.
 */
final class UptimeRoutes {
  static final String CSV = "text/csv";

  private static final List<String> CSV_COLUMNS =
      List.of(
          "from",
          "to",
          "up",
          "down",
          "maintenance",
          "uptime_percent",
          "downtime_seconds",
          "incident_seconds",
          "incidents");

  private final UptimeQueries reports;

  UptimeRoutes(UptimeQueries reports) {
    this.reports = reports;
  }

  void register(RoutesConfig routes) {
    routes.get("/api/services/{name}/uptime", this::uptime);
  }

  private void uptime(Context ctx) {
    String name = Http.name(ctx);
    UptimeQueries.Report report = reports.read(name, ctx.queryString());
    if (wantsCsv(ctx.header("Accept"))) {
      ctx.status(200).contentType(CSV + "; charset=utf-8; header=present").result(csv(report));
    } else {
      Http.json(ctx, 200, json(report));
    }
  }

  /**
   * Whether {@code accept} prefers CSV: {@code text/csv} with a higher weight than JSON (given as
   * {@code application/json}, {@code application/*} or {@code *}{@code /*}). Unparsable weights
   * count as 0; without the header the answer is JSON.
   */
  static boolean wantsCsv(String accept) {
    if (accept == null || accept.length() > 1024) {
      return false;
    }
    double csv = 0;
    double json = 0;
    for (String range : accept.split(",")) {
      String[] parts = range.split(";");
      String type = parts[0].strip().toLowerCase(java.util.Locale.ROOT);
      double weight = 1;
      for (int i = 1; i < parts.length; i++) {
        String parameter = parts[i].strip();
        if (parameter.startsWith("q=")) {
          try {
            weight = Double.parseDouble(parameter.substring(2));
          } catch (NumberFormatException e) {
            weight = 0;
          }
        }
      }
      if (type.equals(CSV)) {
        csv = Math.max(csv, weight);
      } else if (type.equals("application/json")
          || type.equals("application/*")
          || type.equals("*/*")) {
        json = Math.max(json, weight);
      }
    }
    return csv > 0 && csv > json;
  }

  static Map<String, Object> json(UptimeQueries.Report report) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("service", report.service());
    body.put("from", report.request().from().toString());
    body.put("to", report.request().to().toString());
    body.put("step", step(report.request().step()));
    body.put("resolution", report.request().resolution().label());
    body.put("total", step(report.total(), report.now()));
    body.put("steps", report.steps().stream().map(s -> step(s, report.now())).toList());
    if (report.incidentsCut()) {
      body.put("incidentsCut", "more than " + UptimeQueries.MAX_INCIDENTS + " incidents");
    }
    return body;
  }

  private static Map<String, Object> step(UptimeQueries.Step step, Instant now) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("from", step.from().toString());
    row.put("to", step.to().toString());
    row.put("up", step.up());
    row.put("down", step.down());
    row.put("maintenance", step.maintenance());
    row.put("uptimePercent", step.uptimePercent());
    row.put("downtimeSeconds", step.downtimeSeconds());
    row.put("incidentSeconds", step.incidentSeconds(now));
    row.put(
        "incidents",
        step.incidents().stream()
            .map(
                i -> {
                  Map<String, Object> incident = new LinkedHashMap<>();
                  incident.put("id", i.id());
                  incident.put("openedAt", i.openedAt().toString());
                  incident.put("closedAt", i.closedAt() == null ? null : i.closedAt().toString());
                  return incident;
                })
            .toList());
    return row;
  }

  /** One header line, then one line per step; CRLF line ends, fields quoted when they must be. */
  static String csv(UptimeQueries.Report report) {
    StringBuilder out = new StringBuilder();
    line(out, CSV_COLUMNS);
    for (UptimeQueries.Step step : report.steps()) {
      Double uptime = step.uptimePercent();
      line(
          out,
          List.of(
              step.from().toString(),
              step.to().toString(),
              Long.toString(step.up()),
              Long.toString(step.down()),
              Long.toString(step.maintenance()),
              uptime == null ? "" : java.math.BigDecimal.valueOf(uptime).toPlainString(),
              Long.toString(step.downtimeSeconds()),
              Long.toString(step.incidentSeconds(report.now())),
              step.incidents().stream()
                  .map(UptimeQueries.Incident::id)
                  .collect(Collectors.joining(" "))));
    }
    return out.toString();
  }

  private static void line(StringBuilder out, List<String> fields) {
    for (int i = 0; i < fields.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      out.append(quoted(fields.get(i)));
    }
    out.append("\r\n");
  }

  /** RFC 4180: a field with a comma, quote, CR or LF is quoted, its quotes doubled. */
  static String quoted(String field) {
    boolean quote =
        field.indexOf(',') >= 0
            || field.indexOf('"') >= 0
            || field.indexOf('\r') >= 0
            || field.indexOf('\n') >= 0
            || field.indexOf(' ') >= 0;
    return quote ? '"' + field.replace("\"", "\"\"") + '"' : field;
  }

  private static String step(Duration step) {
    return step.toSeconds() % 86_400 == 0 ? step.toDays() + "d" : step.toHours() + "h";
  }
}
