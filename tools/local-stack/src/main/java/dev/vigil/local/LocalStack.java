package dev.vigil.local;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertKind;
import dev.vigil.kit.SafeText;
import dev.vigil.kit.Settings;
import dev.vigil.kit.lifecycle.Closer;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.MonitorConfig;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.MonitorService;
import dev.vigil.notifier.NotifierConfig;
import dev.vigil.notifier.NotifierService;
import dev.vigil.receiver.ReceivedNotification;
import dev.vigil.receiver.ReceiverConfig;
import dev.vigil.receiver.ReferenceReceiver;
import dev.vigil.relay.RelayService;
import dev.vigil.relay.config.RelayConfig;
import dev.vigil.relay.ops.RelayStatus;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The whole pipeline in one JVM: embedded PostgreSQL and Kafka (data kept in the data directory),
 * the reference receiver, notifier, relay, demo targets and monitor, wired exactly as the separate
 * services would be — through their settings — and stopped in reverse order.
 */
final class LocalStack implements AutoCloseable {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("HH:mm:ss").withZone(ZoneId.systemDefault());

  private final Closer started = new Closer("local-stack");
  private final PrintStream out;
  private MonitorService monitorService;
  private RelayService relay;
  private NotifierService notifierService;
  private ReferenceReceiver receiver;
  private Tracing tracing;
  private Map<String, String> user = Map.of();

  private LocalStack(PrintStream out) {
    this.out = out;
  }

  /**
   * Starts every part; if one fails, the parts already started are stopped and the failure is
   * thrown.
   */
  static LocalStack start(LocalStackOptions options, Backing backing, PrintStream out) {
    return start(options, backing, Map.of(), out);
  }

  /**
   * Starts with extra relay settings, e.g. a {@code VIGIL_RELAY_SLOT} of its own for tests that
   * share one PostgreSQL server (replication slot names are server-wide).
   */
  static LocalStack start(
      LocalStackOptions options, Backing backing, Map<String, String> relayExtra, PrintStream out) {
    return start(options, backing, relayExtra, Map.of(), out);
  }

  /**
   * Starts with the {@code VIGIL_*} variables of {@code environment} applied to every service (see
   * {@link #userSettings}), e.g. {@code VIGIL_NOTIFIER_ROUTES_FILE} or {@code
   * VIGIL_MONITOR_PUBLIC_DETAILS}.
   */
  static LocalStack start(
      LocalStackOptions options,
      Backing backing,
      Map<String, String> relayExtra,
      Map<String, String> environment,
      PrintStream out) {
    return start(options, backing, relayExtra, environment, out, null);
  }

  /**
   * Starts with {@code tracing} (kept and closed by the caller) for the monitor's and the
   * notifier's spans, e.g. a test's SDK with an in-memory exporter; null: each service's own.
   */
  static LocalStack start(
      LocalStackOptions options,
      Backing backing,
      Map<String, String> relayExtra,
      Map<String, String> environment,
      PrintStream out,
      Tracing tracing) {
    LocalStack stack = new LocalStack(out);
    stack.tracing = tracing;
    try {
      stack.startAll(options, backing, relayExtra, userSettings(environment));
      return stack;
    } catch (RuntimeException e) {
      throw stack.started.closeAfter(e);
    }
  }

  /** Keys the stack sets itself: its embedded database and broker, and each service's port. */
  static final Set<String> WIRING =
      Set.of(
          "VIGIL_DB_URL",
          "VIGIL_DB_USER",
          "VIGIL_DB_PASSWORD",
          "VIGIL_KAFKA_BOOTSTRAP_SERVERS",
          "VIGIL_HTTP_PORT");

  /**
   * The settings a user passes to the stack's services through its own environment: every {@code
   * VIGIL_*} variable except the {@link #WIRING} keys. They win over the stack's defaults (tokens,
   * webhook, routes, ...); each service reads only its own keys.
   */
  static Map<String, String> userSettings(Map<String, String> environment) {
    Map<String, String> user = new TreeMap<>();
    environment.forEach(
        (key, value) -> {
          if (key.startsWith("VIGIL_") && !WIRING.contains(key)) {
            user.put(key, value);
          }
        });
    return user;
  }

  private void startAll(
      LocalStackOptions options,
      Backing backing,
      Map<String, String> relayExtra,
      Map<String, String> user) {
    this.user = user;
    Path data = options.dataDir().toAbsolutePath();
    LocalSecrets secrets = LocalSecrets.loadOrCreate(data);

    Map<String, String> common = new HashMap<>();
    common.put("VIGIL_DB_URL", backing.jdbcUrl());
    common.put("VIGIL_DB_USER", backing.dbUser());
    common.put("VIGIL_DB_PASSWORD", backing.dbPassword());
    common.put("VIGIL_KAFKA_BOOTSTRAP_SERVERS", backing.kafkaBootstrapServers());
    common.put("VIGIL_WEBHOOK_SECRETS", secrets.webhookSecret());

    String webhookUrl = options.webhookUrl();
    if (webhookUrl == null) {
      receiver =
          keep(
              ReferenceReceiver.start(
                  new ReceiverConfig(settings(common, "VIGIL_HTTP_PORT", options.receiverPort()))));
      receiver.onNotification(notification -> out.println(alertLine(notification.event())));
      webhookUrl = "http://127.0.0.1:" + receiver.port() + "/webhook";
    }

    Map<String, String> notifier = new HashMap<>(common);
    notifier.put("VIGIL_WEBHOOK_URL", webhookUrl);
    notifier.put("VIGIL_WEBHOOK_ALLOW_HTTP", "true");
    notifier.put("VIGIL_NOTIFIER_ADMIN_TOKEN", secrets.adminToken());
    if (options.notifierRoutes() != null) {
      notifier.put("VIGIL_NOTIFIER_ROUTES", options.notifierRoutes());
      if (options.monitorPort() != 0) {
        // links in the alerts to the status page and the monitor API
        notifier.put("VIGIL_NOTIFIER_PUBLIC_URL", "http://127.0.0.1:" + options.monitorPort());
      }
    }
    notifierService =
        keep(
            NotifierService.start(
                new NotifierConfig(settings(notifier, "VIGIL_HTTP_PORT", options.notifierPort())),
                tracing));

    // The relay streams only rows committed after its slot exists (snapshot mode no_data), so the
    // outbox table
    // must exist before the relay starts and the relay must stream before the monitor writes its
    // first alert.
    MonitorSchema.migrate(dataSource(backing));
    Map<String, String> relaySettings = new HashMap<>(common);
    relaySettings.putAll(relayExtra);
    relay =
        keep(
            RelayService.start(
                new RelayConfig(settings(relaySettings, "VIGIL_HTTP_PORT", options.relayPort()))));
    awaitStreaming(relay, Duration.ofSeconds(60));

    DemoTargets demo = keep(DemoTargets.start(options.demoTargetsPort()));
    Path targetsFile =
        options.targetsFile() != null
            ? options.targetsFile().toAbsolutePath()
            : writeDemoTargets(data.resolve("demo-targets.yaml"), demo);

    Map<String, String> monitor = new HashMap<>(common);
    monitor.put("VIGIL_MONITOR_API_TOKEN", secrets.apiToken());
    monitor.put("VIGIL_MONITOR_TARGETS_FILE", targetsFile.toString());
    monitorService =
        keep(
            MonitorService.start(
                new MonitorConfig(settings(monitor, "VIGIL_HTTP_PORT", options.monitorPort())),
                Clock.systemUTC(),
                tracing));

    out.printf(
        """
        Vigil is running (data in %s). Ctrl-C stops everything; running again resumes where it stopped.
          status page      http://127.0.0.1:%d/status
          monitor API      http://127.0.0.1:%d/api/services (mutating calls: Authorization: Bearer %s)
          relay            http://127.0.0.1:%d/health  /metrics
          notifier         http://127.0.0.1:%d/health  /metrics  /admin (Bearer %s)
          webhook          %s
          signing secret   %s (verify webhook-signature with it; Standard Webhooks)
          demo targets     %s  %s  %s
          targets file     %s
          PostgreSQL       %s (user %s)
          Kafka            %s (topic vigil.alerts)
        """,
        data,
        monitorService.httpPort(),
        monitorService.httpPort(),
        effective(monitor, "VIGIL_MONITOR_API_TOKEN"),
        relay.httpPort(),
        notifierService.httpPort(),
        effective(notifier, "VIGIL_NOTIFIER_ADMIN_TOKEN"),
        effective(notifier, "VIGIL_WEBHOOK_URL"),
        effective(notifier, "VIGIL_WEBHOOK_SECRETS"),
        demo.url("healthy"),
        demo.url("flapping"),
        demo.url("maintenance"),
        targetsFile,
        backing.jdbcUrl(),
        backing.dbUser(),
        backing.kafkaBootstrapServers());
    if (!user.isEmpty()) {
      out.println(
          "  your settings    "
              + String.join(" ", user.keySet())
              + " (from the environment, for every service)");
    }
    if (options.alertmanagerUrl() != null) {
      out.println(
          "  alertmanager     "
              + options.alertmanagerUrl()
              + " also gets every alert (alertname VigilServiceDown): see its UI or amtool");
    }
    if (options.webhookUrl() != null) {
      out.println(
          "Delivered alerts go to your webhook; the notifier's /admin API shows what is pending or"
              + " dead.");
    } else {
      out.println("Delivered alerts appear below, one line each:");
    }
  }

  /**
   * Where the stack keeps its state: one PostgreSQL database shared by all services, and a Kafka
   * broker.
   */
  record Backing(String jdbcUrl, String dbUser, String dbPassword, String kafkaBootstrapServers) {}

  /** One readable line per delivered alert: time, service, kind, incident, downtime. */
  static String alertLine(AlertEvent event) {
    StringBuilder line =
        new StringBuilder()
            .append(TIME.format(event.occurredAt()))
            .append("  ")
            .append(String.format("%-12s ", SafeText.text(event.service(), 60)))
            .append(String.format("%-10s", event.kind()))
            .append("incident=")
            .append(event.incidentId().toString(), 0, 8);
    if (event.kind() == AlertKind.RECOVERED) {
      line.append("  downtime=").append(humanDuration(event.downtime()));
    } else if (event.lastError() != null) {
      line.append("  error=").append(SafeText.text(event.lastError(), 200));
    }
    return line.toString();
  }

  private static String humanDuration(Duration duration) {
    long seconds = duration.toSeconds();
    return seconds < 60
        ? seconds + "s"
        : (seconds / 60) + "m" + String.format("%02d", seconds % 60) + "s";
  }

  /** Waits until {@code relay} streams (its topic exists then), or throws after {@code timeout}. */
  static void awaitStreaming(RelayService relay, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (relay.status().state() != RelayStatus.State.STREAMING) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "relay not streaming after " + timeout + ": " + relay.status().reason());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the relay", e);
      }
    }
  }

  private static DataSource dataSource(Backing backing) {
    PGSimpleDataSource dataSource = new PGSimpleDataSource();
    dataSource.setURL(backing.jdbcUrl());
    dataSource.setUser(backing.dbUser());
    dataSource.setPassword(backing.dbPassword());
    return dataSource;
  }

  /** {@code base}, then the user's settings over it, then the port. */
  private Settings settings(Map<String, String> base, String key, int value) {
    Map<String, String> values = new HashMap<>(base);
    values.putAll(user);
    values.put(key, String.valueOf(value));
    return new Settings(values);
  }

  /** What a service runs with for {@code key}: the user's setting, else the stack's. */
  private String effective(Map<String, String> base, String key) {
    return user.getOrDefault(key, base.get(key));
  }

  /** The demo target {@code maintenance}'s window: every day, all day (UTC). */
  static final String MAINTENANCE_WINDOW =
      "    maintenance:\n"
          + "      - {days: [mon, tue, wed, thu, fri, sat, sun], start: \"00:00\", length: 1d,"
          + " zone: UTC}\n";

  private static Path writeDemoTargets(Path file, DemoTargets demo) {
    StringBuilder yaml =
        new StringBuilder("# Written by the local stack on every start.\ntargets:\n");
    for (String name : new String[] {"healthy", "flapping", "maintenance"}) {
      yaml.append("  - name: ")
          .append(name)
          .append("\n    url: ")
          .append(demo.url(name))
          .append("\n    interval: 2s\n    timeout: 1s\n    failureThreshold: 3\n");
      if (name.equals("maintenance")) {
        // Always in its maintenance window: its outages are recorded and shown, never paged.
        yaml.append(MAINTENANCE_WINDOW);
      }
    }
    try {
      Files.writeString(file, yaml);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /** The port of the monitor's API, /health and /metrics. */
  int monitorPort() {
    return monitorService.httpPort();
  }

  /** The port of the relay's /health and /metrics. */
  int relayPort() {
    return relay.httpPort();
  }

  /** The port of the notifier's /health, /metrics and /admin. */
  int notifierPort() {
    return notifierService.httpPort();
  }

  /** Stops the relay alone, as if its process died; the other parts keep running. */
  void stopRelay() {
    relay.close();
  }

  private <T extends AutoCloseable> T keep(T part) {
    return started.add(part);
  }

  /** Also tells {@code listener} of each notification the stack's reference receiver stores. */
  void onNotification(Consumer<ReceivedNotification> listener) {
    if (receiver == null) {
      throw new IllegalStateException("the stack sends to an outside webhook, not its receiver");
    }
    receiver.onNotification(listener);
  }

  /** Stops every part in reverse start order; every part is stopped, the first failure thrown. */
  @Override
  public void close() {
    started.close();
  }
}
