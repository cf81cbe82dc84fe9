package dev.vigil.monitor.status;

import dev.vigil.monitor.status.StatusReads.CheckRow;
import dev.vigil.monitor.status.StatusReads.HourRow;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * A response-time chart, drawn on the server as SVG geometry (the template only places numbers): a
 * line through the latencies and a red mark for every DOWN check or hour with DOWN checks.
 *
 * @param line polyline points {@code "x,y x,y"}; empty when nothing had a latency
 * @param downs where DOWN marks go
 * @param peak the largest latency drawn, e.g. {@code 120 ms} (the chart's top)
 * @param empty whether no latency is drawn (DOWN marks may still be)
 */
record Chart(
    int width,
    int height,
    String title,
    String line,
    List<Mark> downs,
    String peak,
    boolean empty) {
  /** One DOWN mark. */
  record Mark(String x, String y, String label) {}

  private static final int PAD = 4;

  /** The last 24 clock hours of one service: one slot per hour, mean latency per slot. */
  static Chart hourly(String service, List<HourRow> hours, Instant now, int width, int height) {
    Instant first = now.truncatedTo(ChronoUnit.HOURS).minus(Duration.ofHours(23));
    List<double[]> points = new ArrayList<>();
    List<Integer> downSlots = new ArrayList<>();
    for (HourRow hour : hours) {
      if (!hour.service().equals(service)) {
        continue;
      }
      long slot = Duration.between(first, hour.hour()).toHours();
      if (slot < 0 || slot > 23) {
        continue;
      }
      if (hour.meanLatencyMs() != null) {
        points.add(new double[] {slot, hour.meanLatencyMs()});
      }
      if (hour.down() > 0) {
        downSlots.add((int) slot);
      }
    }
    return draw(
        "Mean response time per hour of " + service + ", last 24 hours",
        points,
        downSlots,
        23,
        width,
        height,
        slot -> "DOWN checks in the hour from " + Format.time(first.plus(Duration.ofHours(slot))));
  }

  /** The given checks (newest first, as read) drawn oldest to newest. */
  static Chart checks(String service, List<CheckRow> newestFirst, int width, int height) {
    List<CheckRow> checks = new ArrayList<>(newestFirst);
    java.util.Collections.reverse(checks);
    List<double[]> points = new ArrayList<>();
    List<Integer> downSlots = new ArrayList<>();
    for (int i = 0; i < checks.size(); i++) {
      CheckRow check = checks.get(i);
      if (check.latencyMs() != null) {
        points.add(new double[] {i, check.latencyMs()});
      }
      if ("DOWN".equals(check.status())) {
        downSlots.add(i);
      }
    }
    return draw(
        "Response time of the last " + checks.size() + " checks of " + service,
        points,
        downSlots,
        Math.max(1, checks.size() - 1),
        width,
        height,
        slot -> "DOWN at " + Format.time(checks.get(slot).recordedAt()));
  }

  private static Chart draw(
      String title,
      List<double[]> points,
      List<Integer> downSlots,
      int lastSlot,
      int width,
      int height,
      java.util.function.IntFunction<String> downLabel) {
    double peak = 1;
    for (double[] point : points) {
      peak = Math.max(peak, point[1]);
    }
    double xStep = (width - 2.0 * PAD) / Math.max(1, lastSlot);
    double yScale = (height - 2.0 * PAD) / peak;
    StringBuilder line = new StringBuilder();
    if (points.size() == 1) {
      points = List.of(points.get(0), points.get(0)); // a zero-length line: a dot (round caps)
    }
    for (double[] point : points) {
      line.append(line.isEmpty() ? "" : " ")
          .append(Format.number(PAD + point[0] * xStep))
          .append(',')
          .append(Format.number(height - PAD - point[1] * yScale));
    }
    List<Mark> downs = new ArrayList<>();
    for (int slot : downSlots) {
      downs.add(
          new Mark(Format.number(PAD + slot * xStep), Format.number(PAD), downLabel.apply(slot)));
    }
    return new Chart(
        width, height, title, line.toString(), downs, Math.round(peak) + " ms", points.isEmpty());
  }
}
