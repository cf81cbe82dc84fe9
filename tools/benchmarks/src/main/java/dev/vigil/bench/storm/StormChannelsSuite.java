package dev.vigil.bench.storm;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.delivery.Notifier;
import dev.vigil.bench.delivery.WebhookReceiver;
import dev.vigil.bench.outbox.Clocks;
import dev.vigil.bench.outbox.OutboxRun;
import dev.vigil.bench.relay.VigilRelay;
import dev.vigil.harness.vendor.FakeVendor;
import dev.vigil.monitor.MonitorService;
import dev.vigil.notifier.NotifierService;
import dev.vigil.relay.RelayService;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The incident storm routed to channels: N services ({@code --services}, default 10,000; quick
 * 1,000) fail at once, then recover, through the real monitor and relay to two notifiers in the
 * same run, one with Slack and PagerDuty grouped (their defaults) and one with {@code group: off},
 * each routing every service to Slack + PagerDuty + the signed webhook. The Slack and PagerDuty
 * ends are the harness's fakes, which enforce the vendors' documented limits (Slack 1 message/s per
 * webhook, PagerDuty 120 events/min per routing key; 429 with Retry-After beyond) and validate
 * every body. Per notifier, channel and flip: messages, time to the first and the last message,
 * services named (within 2 minutes, and missing), requests over the limit, and per-service order.
 */
public final class StormChannelsSuite implements Suite {
  private static final Logger LOG = LoggerFactory.getLogger(StormChannelsSuite.class);
  private static final String DATABASE = "bench_storm_channels";
  private static final String TOPIC = "bench.storm.channels";
  private static final String UP_SQL = "select count(*) from health_status where status = 'UP'";

  /**
   * Each flip lasts until the grouped side has named every service, and at least this long: the
   * aim's two minutes (and a little), so that the side without grouping has them too.
   */
  private static final Duration FLIP_AT_LEAST = Duration.ofSeconds(123);

  /** Slack's "short bursts" (two in a row), then one message a second. */
  private static final int SLACK_BURST = 2;

  /** One notifier and the fakes it sends to. */
  private record Side(
      boolean grouped, FakeVendor slack, FakeVendor pd, WebhookReceiver webhook, String name)
      implements AutoCloseable {
    static Side create(boolean grouped) {
      return new Side(
          grouped,
          FakeVendor.slack(SLACK_BURST),
          FakeVendor.pagerDuty(2),
          new WebhookReceiver(),
          grouped ? "grouped" : "off");
    }

    Map<String, String> settings() {
      String group = grouped ? "" : ", group: off";
      Map<String, String> env = new HashMap<>();
      env.put(
          "VIGIL_NOTIFIER_ROUTES",
          """
          channels:
            team: {type: slack, url: "%s"%s}
            oncall: {type: pagerduty, url: "%s", routingKey: env:BENCH_PD_KEY%s}
          routes:
            - {match: "*", channels: [team, oncall, webhook]}
          """
              .formatted(
                  slack.url("/services/T0BENCH/B0BENCH/storm-" + name),
                  group,
                  pd.url("/v2/enqueue"),
                  group));
      env.put("BENCH_PD_KEY", "bench-routing-key-" + name + "-000000000000");
      env.put("VIGIL_NOTIFIER_ADMIN_TOKEN", "bench-admin-token");
      return env;
    }

    @Override
    public void close() {
      slack.close();
      pd.close();
      webhook.close();
    }
  }

  @Override
  public void run(BenchContext ctx) throws Exception {
    int services = ctx.options().stormServices();
    // as the storm suite: the quick run probes every 2 s so three failures cross within seconds
    Duration interval = Duration.ofSeconds(ctx.options().quick() ? 2 : 10);
    Duration phase = Duration.ofSeconds(ctx.options().quick() ? 240 : 600);
    DataSource db = ctx.infra().monitorDatabase(DATABASE, 4);
    ctx.infra().createTopic(TOPIC, PARTITIONS);
    Set<String> names = new LinkedHashSet<>();
    IntStream.range(0, services).forEach(i -> names.add("storm-" + i));
    try (StormTargets server = new StormTargets();
        Side grouped = Side.create(true);
        Side off = Side.create(false)) {
      StormStack.storeTargets(db, server, services, interval);
      long[] flips = new long[3]; // failing from, recovering from, end (epoch µs)
      try (RelayService relay = VigilRelay.start(ctx.infra(), DATABASE, TOPIC);
          NotifierService groupedNotifier = start(ctx, grouped);
          NotifierService offNotifier = start(ctx, off);
          MonitorService monitor =
              StormStack.startMonitor(ctx, DATABASE, "bench-storm-channels-monitor")) {
        StormStack.awaitPhase(
            "storm-channels", "all up", phase, 500, () -> StormSuite.count(db, UP_SQL) >= services);
        flips[0] = Clocks.nowMicros();
        server.fail();
        LOG.info("storm-channels: every service fails now services={}", services);
        StormStack.awaitPhase(
            "storm-channels",
            "FAILED named by the grouped channels",
            phase,
            500,
            () -> allNamed(grouped, names, true, flips[0]));
        sleepUntil(flips[0]);
        flips[1] = Clocks.nowMicros();
        server.recover();
        LOG.info("storm-channels: every service recovers now services={}", services);
        StormStack.awaitPhase(
            "storm-channels",
            "RECOVERED named by the grouped channels",
            phase,
            500,
            () -> allNamed(grouped, names, false, flips[1]));
        sleepUntil(flips[1]);
        flips[2] = Clocks.nowMicros();
      }
      List<StormEvent> all = StormSuite.events(db);
      logMessages(grouped, flips);
      for (Side side : List.of(grouped, off)) {
        report(ctx, side, names, all, flips, interval);
      }
    }
  }

  private static void sleepUntil(long flipMicros) {
    long left = flipMicros + FLIP_AT_LEAST.toNanos() / 1000 - Clocks.nowMicros();
    if (left > 0) {
      OutboxRun.sleep(left / 1000);
    }
  }

  /** One line per accepted message of {@code side}'s grouped channels, for the report's notes. */
  private static void logMessages(Side side, long[] flips) {
    for (var channel : List.of("slack", "pagerduty")) {
      List<VendorMessages.Message> messages =
          channel.equals("slack")
              ? VendorMessages.slack(side.slack())
              : VendorMessages.pagerDuty(side.pd());
      for (VendorMessages.Message m : messages) {
        LOG.info(
            "storm-channels message side={} channel={} atS={} down={} recovered={}",
            side.name(),
            channel,
            String.format("%.2f", (m.atMicros() - flips[0]) / 1e6),
            m.down().size(),
            m.recovered().size());
      }
    }
  }

  private static NotifierService start(BenchContext ctx, Side side) {
    return Notifier.start(
        ctx.infra(),
        DATABASE + "_notifier_" + side.name(),
        TOPIC,
        "bench-storm-channels-" + side.name(),
        side.webhook().url(),
        side.settings());
  }

  private static void report(
      BenchContext ctx,
      Side side,
      Set<String> names,
      List<StormEvent> all,
      long[] flips,
      Duration interval) {
    String note =
        "%d services every %d s, thresholds 3 down / 1 up, one run; %s; Slack fake 1 msg/s (burst 2),"
                .formatted(
                    names.size(), interval.toSeconds(), side.grouped() ? "grouped" : "group: off")
            + " PagerDuty fake 120/min (429 + Retry-After beyond); each flip measured until the"
            + " grouped side had named every service, and at least 123 s";
    Map<String, List<VendorMessages.Message>> byChannel = new LinkedHashMap<>();
    byChannel.put("slack", VendorMessages.slack(side.slack()));
    byChannel.put("pagerduty", VendorMessages.pagerDuty(side.pd()));
    Map<String, FakeVendor> fakes = Map.of("slack", side.slack(), "pagerduty", side.pd());
    for (var channel : byChannel.entrySet()) {
      List<Long> over =
          fakes.get(channel.getKey()).overLimit().stream()
              .map(FakeVendor.Received::atMicros)
              .toList();
      long violations = ChannelStats.orderViolations(channel.getValue());
      long invalid = fakes.get(channel.getKey()).violations().size();
      for (int k = 0; k < 2; k++) {
        String kind = k == 0 ? "FAILED" : "RECOVERED";
        Map<String, Double> m =
            ChannelStats.flip(channel.getValue(), over, names, kind, flips[k], flips[k + 1]);
        m.put("order_violations", (double) violations);
        m.put("invalid_bodies", (double) invalid);
        ctx.addOneRun(
            Cases.STORM_CHANNELS,
            Cases.stormChannel(side.grouped(), channel.getKey(), kind),
            m,
            note);
      }
    }
    List<StormEvent> events = all.stream().filter(e -> e.occurredMicros() >= flips[0]).toList();
    long outOfOrder = StormStats.servicesOutOfOrder(all, side.webhook()::order);
    for (int k = 0; k < 2; k++) {
      String kind = k == 0 ? "FAILED" : "RECOVERED";
      Map<String, Double> m = new LinkedHashMap<>();
      m.put("services", (double) names.size());
      m.putAll(StormStats.delays(events, kind, side.webhook().firstArrival(), flips[k]));
      m.put("duplicates", (double) (side.webhook().requests() - side.webhook().distinct()));
      m.put("order_violations", (double) outOfOrder);
      ctx.addOneRun(
          Cases.STORM_CHANNELS, Cases.stormChannel(side.grouped(), "webhook", kind), m, note);
    }
  }

  /** Whether Slack and PagerDuty of {@code side} have both named every service since the flip. */
  private static boolean allNamed(Side side, Set<String> names, boolean down, long sinceMicros) {
    return named(VendorMessages.slack(side.slack()), down, sinceMicros).containsAll(names)
        && named(VendorMessages.pagerDuty(side.pd()), down, sinceMicros).containsAll(names);
  }

  private static Set<String> named(
      List<VendorMessages.Message> messages, boolean down, long sinceMicros) {
    Set<String> named = new LinkedHashSet<>();
    for (VendorMessages.Message m : messages) {
      if (m.atMicros() >= sinceMicros) {
        named.addAll(down ? m.down() : m.recovered());
      }
    }
    return named;
  }
}
