package dev.vigil.bench;

import dev.vigil.bench.outbox.DbLimitSuite;
import dev.vigil.bench.polling.PollingSuite;

/** The headline figures of the issue, as ratios to the baselines of the same run where it asks. */
final class Headlines {
  private Headlines() {}

  static void add(Report r) {
    double limit = r.metric(DbLimitSuite.NAME, DbLimitSuite.CASE, "events_per_s");
    double polling =
        r.results().stream()
            .filter(x -> x.suite().equals(PollingSuite.NAME) && x.variant().endsWith("saturation"))
            .mapToDouble(x -> x.get("events_per_s"))
            .filter(v -> !Double.isNaN(v))
            .max()
            .orElse(Double.NaN);
    double relay = r.metric("relay", "vigil saturation", "events_per_s");
    r.headline(Headline.atLeast("relay live / database commit limit", relay / limit, "x", 0.9));
    r.headline(Headline.atLeast("relay live / best polling relay", relay / polling, "x", 5));
    r.headline(
        Headline.atLeast(
            "relay catch-up of the backlog",
            r.metric("catchup", "vigil backlog", "events_per_s"),
            "events/s",
            15_000));
    r.headline(
        Headline.atMost(
            "relay p99 commit → Kafka ack at 1,000/s",
            r.metric("relay", "vigil @1000/s", "p99_ms"),
            "ms",
            20));
    r.headline(
        Headline.atLeast(
            "recorder, 8 connections, 10,000 services",
            r.metric("recorder", "recorder 8 conn, 10000 services", "events_per_s"),
            "results/s",
            5_000));
    r.headline(
        Headline.atMost(
            "probing 10,000 targets at 10 s: schedule lag p99",
            r.metric("probing", "10000 targets every 10 s", "lag_p99_ms"),
            "ms",
            1_000));
    r.headline(
        Headline.atMost(
            "end to end FAILED commit → receiver p99 at 1,000/s",
            r.metric("e2e", "FAILED @1000/s", "p99_ms"),
            "ms",
            250));
    r.headline(
        Headline.atLeast(
            "notifier deliveries",
            r.metric("notifier", "deliveries", "events_per_s"),
            "deliveries/s",
            2_000));
  }
}
