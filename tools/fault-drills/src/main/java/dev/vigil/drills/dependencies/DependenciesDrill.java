package dev.vigil.drills.dependencies;

import dev.vigil.contract.AlertEvent;
import dev.vigil.drills.stack.Infra;
import dev.vigil.drills.stack.ServiceProcess;
import dev.vigil.drills.stack.Stack;
import dev.vigil.drills.stack.StackOptions;
import dev.vigil.monitor.quiet.Silences;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the dependencies drill of issue 30: PostgreSQL and Kafka in this JVM; the receiver, a relay,
 * a notifier and one or two probing monitors as OS processes; the services in this JVM ({@link
 * ServiceFarm}). Each scenario has targets of its own (named by its letter), so the pages at the
 * receiver are counted per scenario by name; every wait is on a condition in the databases.
 */
public final class DependenciesDrill {
  private static final Logger LOG = LoggerFactory.getLogger(DependenciesDrill.class);
  private static final Duration STARTUP = Duration.ofMinutes(5);
  private static final Duration WAIT = Duration.ofMinutes(10);

  private final DependenciesOptions options;
  private Infra infra;
  private Stack stack;
  private ServiceFarm farm;
  private TargetStore targets;
  private Silences silences;
  private final List<ServiceProcess> monitors = new ArrayList<>();
  private Observations seen;

  private DependenciesDrill(DependenciesOptions options) {
    this.options = options;
  }

  /** Runs the drill with its databases, broker data and logs under {@code workDir}. */
  public static DependenciesResult run(DependenciesOptions options, Path workDir) {
    return new DependenciesDrill(options).run(workDir);
  }

  private DependenciesResult run(Path workDir) {
    List<ScenarioResult> results = new ArrayList<>();
    long started = System.nanoTime();
    long probes = 0;
    String error = null;
    try (Infra infra = Infra.start(workDir);
        Stack stack = new Stack(infra, StackOptions.defaults(workDir.resolve("logs")));
        ServiceFarm farm = ServiceFarm.start()) {
      this.infra = infra;
      this.stack = stack;
      this.farm = farm;
      this.seen = new Observations(infra);
      ServiceProcess receiver = stack.startReceiver();
      stack.addRelay();
      stack.addNotifier(stack.receiverBaseUrl() + Stack.RECEIVER_WEBHOOK_PATH);
      Stack.awaitHealthy(receiver, STARTUP);
      stack.awaitStreamingRelay(STARTUP);
      stack.notifiers().forEach(n -> Stack.awaitHealthy(n, STARTUP));
      PGSimpleDataSource data = new PGSimpleDataSource();
      data.setUrl(infra.jdbcUrl(Infra.VIGIL_DB));
      data.setUser(infra.dbUser());
      targets = new TargetStore(data);
      silences = new Silences(data);
      addMonitor();
      for (String name : DependenciesOptions.ALL) {
        if (!options.scenarios().contains(name)) {
          continue;
        }
        if (!name.equals("a") && monitors.size() < 2) {
          addMonitor(); // b, c and d run with two monitors
        }
        results.add(scenario(name));
      }
      probes = farm.requests();
    } catch (RuntimeException e) {
      error = e.getClass().getSimpleName() + ": " + e.getMessage();
      LOG.error("dependencies drill failed error={}", error, e);
    }
    return new DependenciesResult(
        options, results, (System.nanoTime() - started) / 1_000_000, probes, error);
  }

  private void addMonitor() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("VIGIL_MONITOR_ANNOUNCE_INTERVAL", options.announceInterval().toMillis() + "ms");
    settings.put("VIGIL_DB_POOL_SIZE", "8");
    ServiceProcess monitor = stack.addProbingMonitor("monitor-" + (monitors.size() + 1), settings);
    monitors.add(monitor);
    Stack.awaitHealthy(monitor, STARTUP);
  }

  private ScenarioResult scenario(String name) {
    Map<String, Object> numbers = new LinkedHashMap<>();
    String title =
        switch (name) {
          case "a" -> "gateway and children, one monitor";
          case "b" -> "gateway and children, two monitors, kill -9 of one mid-way";
          case "c" -> "maintenance window over a prefix while another service's silence ends";
          default -> "storm behind parents";
        };
    String criterion =
        switch (name) {
          case "a", "b" ->
              "1 FAILED (gateway, impact %d), 0 child FAILED while it is down; then 1 RECOVERED"
                      .formatted(options.children())
                  + " and exactly %d child FAILED after the settle period; %d independent"
                      .formatted(options.stayDown(), options.failingIndependents())
                  + " services with outages paged and recovered once, the others not paged";
          case "c" ->
              "the service's FAILED committed within one announce interval (%s) of its silence's"
                      .formatted(options.announceInterval())
                  + " end and received within it plus %s; 0 FAILED of the %d services in the window"
                      .formatted(Verdicts.DELIVERY_ALLOWANCE, options.maintenance());
          default ->
              "%d pages at the receiver (one per parent) for %d services failing at once"
                  .formatted(options.stormParents(), options.stormServices());
        };
    LOG.info("dependencies scenario start scenario={} title=\"{}\"", name, title);
    try {
      boolean passed =
          switch (name) {
            case "a" -> gateway("a", false, numbers);
            case "b" -> gateway("b", true, numbers);
            case "c" -> maintenance(numbers);
            default -> storm(numbers);
          };
      LOG.info(
          "dependencies scenario done scenario={} passed={} numbers={}", name, passed, numbers);
      return new ScenarioResult(name, title, criterion, passed, numbers, null);
    } catch (RuntimeException e) {
      String error = e.getClass().getSimpleName() + ": " + e.getMessage();
      LOG.error("dependencies scenario failed scenario={} error={}", name, error, e);
      return new ScenarioResult(name, title, criterion, false, numbers, error);
    }
  }

  // Scenarios a and b.
  private boolean gateway(String prefix, boolean kill, Map<String, Object> numbers) {
    String gw = prefix + "-gw";
    List<String> children = names(prefix + "-c-%03d", options.children());
    List<String> independents = names(prefix + "-ind-%02d", options.independents());
    List<String> failing = independents.subList(0, options.failingIndependents());
    List<TargetSpec> specs = new ArrayList<>();
    specs.add(spec(gw, DependenciesOptions.PARENT_THRESHOLD).build());
    children.forEach(
        c ->
            specs.add(
                spec(c, DependenciesOptions.CHILD_THRESHOLD).dependsOn(List.of(gw), null).build()));
    independents.forEach(i -> specs.add(spec(i, DependenciesOptions.CHILD_THRESHOLD).build()));
    targets.upsertAll(specs, TargetStore.Source.API);
    awaitUp(prefix, specs.size());

    List<String> down = new ArrayList<>(children);
    down.add(gw);
    down.addAll(failing);
    Instant downAt = seen.dbNow();
    farm.down(down);
    if (kill) {
      Stack.await(
          "the gateway's FAILED at the receiver", WAIT, () -> seen.received(gw, "FAILED") >= 1);
      ServiceProcess victim = monitors.getLast();
      int exit = victim.kill9();
      numbers.put("killed", victim.name() + " (exit " + exit + ")");
      numbers.put("killedAfterMs", Duration.between(downAt, seen.dbNow()).toMillis());
      Stack.pause(options.interval().multipliedBy(2).toMillis());
      victim.start();
      Stack.awaitHealthy(victim, STARTUP);
    }
    Stack.await(
        "every child held back and every page of the gateway's outage delivered",
        WAIT,
        () ->
            seen.held(prefix + "-c-") == children.size()
                && seen.received(gw, "FAILED") >= 1
                && seen.receivedLike(prefix + "-ind-", "FAILED") >= failing.size()
                && seen.delivered(prefix));
    long childFailedWhileDown = seen.receivedLike(prefix + "-c-", "FAILED");
    long held = seen.held(prefix + "-c-");
    AlertEvent gwFailed = seen.first(gw, "FAILED");
    numbers.put("gatewayFailedMs", seen.receivedAfterMs(gw, "FAILED", downAt));

    List<String> recovering =
        new ArrayList<>(children.subList(options.stayDown(), children.size()));
    recovering.add(gw);
    recovering.addAll(failing);
    Instant upAt = seen.dbNow();
    farm.up(recovering);
    Stack.await(
        "the gateway recovered, the children that stayed down paged, the others closed",
        WAIT,
        () ->
            seen.received(gw, "RECOVERED") >= 1
                && seen.openLike(prefix + "-c-") == options.stayDown()
                && seen.receivedLike(prefix + "-c-", "FAILED")
                    >= childFailedWhileDown + options.stayDown()
                && seen.receivedLike(prefix + "-ind-", "RECOVERED") >= failing.size()
                && seen.delivered(prefix));
    AlertEvent gwRecovered = seen.first(gw, "RECOVERED");
    long childFailedAfter = seen.receivedLike(prefix + "-c-", "FAILED") - childFailedWhileDown;
    numbers.put("lastChildFailedAfterGatewayUpMs", seen.receivedAfterMs(prefix + "-c-%", upAt));
    long independentFailed = seen.receivedIn(failing, "FAILED");
    long independentRecovered = seen.receivedIn(failing, "RECOVERED");
    long withoutOutage =
        seen.receivedIn(independents.subList(failing.size(), independents.size()), "FAILED");
    GatewayCounts counts =
        new GatewayCounts(
            seen.received(gw, "FAILED"),
            Observations.impact(gwFailed),
            childFailedWhileDown,
            held,
            seen.received(gw, "RECOVERED"),
            Observations.impact(gwRecovered),
            childFailedAfter,
            independentFailed,
            independentRecovered,
            withoutOutage);
    numbers.put("counts", counts);

    // Heal the children that stayed down and wait until every incident is closed, so nothing of
    // this scenario pages during the next.
    farm.up(children.subList(0, options.stayDown()));
    Stack.await(
        "every incident of scenario " + prefix + " closed and delivered",
        WAIT,
        () -> seen.openLike(prefix + "-") == 0 && seen.delivered(prefix));
    retire(specs);
    return counts.passed(options);
  }

  // Scenario c.
  private boolean maintenance(Map<String, Object> numbers) {
    List<String> window = names("c-maint-%03d", options.maintenance());
    String pay = "c-pay";
    List<TargetSpec> specs = new ArrayList<>();
    window.forEach(w -> specs.add(spec(w, 1).build()));
    specs.add(spec(pay, 1).build());
    targets.upsertAll(specs, TargetStore.Source.API);
    awaitUp("c", specs.size());
    var windowSilence =
        silences.add(
            null, "c-maint-", "drill", "maintenance window", Instant.now().plusSeconds(3600));
    // The window's incidents open first, so they are the oldest held-back candidates.
    farm.down(window);
    Stack.await(
        "every incident of the window open and held back",
        WAIT,
        () -> seen.heldQuiet("c-maint-") == window.size());
    Instant end = seen.dbNow().plus(options.interval().multipliedBy(3)).plusSeconds(5);
    var paySilence = silences.add(pay, null, "drill", "deploy", end);
    farm.down(List.of(pay));
    // The announcer selects incidents whose not_before has come: the silence's end for these.
    Stack.await(
        "the service's incident open and held back until its silence ends",
        WAIT,
        () -> seen.heldQuiet(pay) == 1);
    if (!seen.dbNow().isBefore(end)) {
      throw new IllegalStateException(
          "the incidents were not all held back before the silence ended; raise --interval");
    }
    numbers.put("heldInWindow", seen.heldQuiet("c-maint-"));
    numbers.put("silenceEnd", end.toString());
    Stack.await(
        "the service's FAILED at the receiver",
        options.interval().multipliedBy(3).plus(WAIT),
        () -> seen.received(pay, "FAILED") >= 1 && seen.delivered("c"));
    long committedMs = seen.committedAfterMs(pay, "FAILED", end);
    long receivedMs = seen.receivedAfterMs(pay, "FAILED", end);
    long maintenanceFailed = seen.receivedLike("c-maint-", "FAILED");
    long payFailed = seen.received(pay, "FAILED");
    numbers.put("failedCommittedAfterSilenceEndMs", committedMs);
    numbers.put("failedReceivedAfterSilenceEndMs", receivedMs);
    numbers.put("payFailed", payFailed);
    numbers.put("windowFailed", maintenanceFailed);

    List<String> all = new ArrayList<>(window);
    all.add(pay);
    farm.up(all);
    Stack.await(
        "every incident of scenario c closed and delivered",
        WAIT,
        () -> seen.openLike("c-") == 0 && seen.delivered("c"));
    silences.delete(windowSilence.id());
    silences.delete(paySilence.id());
    retire(specs);
    return Verdicts.silenceEnd(
        payFailed, maintenanceFailed, committedMs, receivedMs, options.announceInterval());
  }

  // Scenario d.
  private boolean storm(Map<String, Object> numbers) {
    int parents = options.stormParents();
    int perParent = (options.stormServices() - parents) / parents;
    List<TargetSpec> specs = new ArrayList<>();
    List<String> all = new ArrayList<>();
    for (int p = 0; p < parents; p++) {
      String parent = "d-p%02d".formatted(p);
      specs.add(spec(parent, DependenciesOptions.PARENT_THRESHOLD).build());
      all.add(parent);
      for (int c = 0; c < perParent; c++) {
        String child = "d-c%02d-%05d".formatted(p, c);
        specs.add(
            spec(child, DependenciesOptions.CHILD_THRESHOLD)
                .dependsOn(List.of(parent), null)
                .build());
        all.add(child);
      }
    }
    targets.upsertAll(specs, TargetStore.Source.API);
    awaitUp("d", specs.size());
    int children = specs.size() - parents;
    numbers.put("services", specs.size());
    Instant downAt = seen.dbNow();
    farm.down(all);
    Stack.await(
        "every parent paged and every child held back",
        WAIT,
        () ->
            seen.receivedLike("d-p", "FAILED") >= parents
                && seen.held("d-c") == children
                && seen.delivered("d"));
    long parentFailed = seen.receivedLike("d-p", "FAILED");
    long childFailed = seen.receivedLike("d-c", "FAILED");
    numbers.put("pages", parentFailed + childFailed);
    numbers.put("lastPageAfterMs", seen.receivedAfterMs("d-%", downAt));
    numbers.put("allHeldAfterMs", seen.openedAfterMs("d-c", downAt));
    numbers.put("impactOfParentsFailed", seen.impactSum("d-p"));
    return Verdicts.storm(parentFailed, childFailed, parents);
  }

  private TargetSpec.Builder spec(String name, int failureThreshold) {
    return TargetSpec.builder(name, TargetKind.HTTP)
        .url(farm.url(name))
        .interval(options.interval())
        .timeout(Duration.ofSeconds(2))
        .connectTimeout(Duration.ofSeconds(1))
        .thresholds(failureThreshold, 1);
  }

  private static List<String> names(String format, int count) {
    return IntStream.range(0, count).mapToObj(format::formatted).toList();
  }

  /** Deletes a finished scenario's targets (all up, no incident open: nothing is written). */
  private void retire(List<TargetSpec> specs) {
    specs.forEach(s -> targets.delete(s.name()));
  }

  private void awaitUp(String prefix, int count) {
    Stack.await(
        count + " services of scenario " + prefix + " up",
        WAIT,
        () -> seen.up(prefix + "-") >= count);
  }
}
