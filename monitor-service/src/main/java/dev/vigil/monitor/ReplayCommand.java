package dev.vigil.monitor;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.db.DatabaseException;
import dev.vigil.monitor.replay.InvalidReplayException;
import dev.vigil.monitor.replay.OutboxReplay;
import dev.vigil.monitor.replay.ReplayBusyException;
import dev.vigil.monitor.replay.ReplayResult;
import dev.vigil.monitor.replay.ReplaySelection;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar monitor-service.jar replay …}: the operator command for a replay, with the
 * monitor's own database settings ({@code VIGIL_DB_*}, {@code VIGIL_MONITOR_REPLAY_*}) from the
 * environment. Exit 0 when done (or counted, with {@code --dry-run}), 2 for a bad option or a
 * refused selection, 1 when the database failed or another replay is running.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Publishes outbox rows again, with their original event ids, in chunks of one transaction"
          + " each. Consumers that keep receipts (the notifier) page nothing twice.",
      "Give at least one bound; every bound is inclusive."
    })
public final class ReplayCommand implements Callable<Integer> {
  @Option(names = "--service", description = "Only this service's rows.")
  String service;

  @Option(names = "--from-seq", description = "Lowest outbox seq.")
  Long fromSeq;

  @Option(names = "--to-seq", description = "Highest outbox seq.")
  Long toSeq;

  @Option(names = "--from", description = "Earliest created_at, e.g. 2026-12-01T00:00:00Z.")
  Instant from;

  @Option(names = "--to", description = "Latest created_at.")
  Instant to;

  @Option(names = "--dry-run", description = "Only count the rows selected; write nothing.")
  boolean dryRun;

  private final Settings settings;

  ReplayCommand(Settings settings) {
    this.settings = settings;
  }

  /** Runs the command with {@code args} (after {@code replay}); returns the exit code. */
  public static int run(String[] args, Settings settings) {
    return new CommandLine(new ReplayCommand(settings)).execute(args);
  }

  @Override
  public Integer call() {
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    ReplaySelection selection;
    MonitorConfig config;
    try {
      selection = new ReplaySelection(service, fromSeq, toSeq, from, to);
      config = new MonitorConfig(settings);
    } catch (InvalidReplayException e) {
      err.println("replay refused: " + describe(e));
      return 2;
    } catch (ConfigException e) {
      err.println("replay refused: " + e.getMessage());
      return 2;
    }
    try (Database database =
        Database.open(config.database(2, "vigil-monitor-replay", null, null))) {
      OutboxReplay replay =
          new OutboxReplay(
              database.dataSource(),
              config.get(MonitorConfig.REPLAY_MAX_ROWS),
              config.get(MonitorConfig.REPLAY_CHUNK_ROWS),
              new SimpleMeterRegistry());
      ReplayResult result = replay.replay(selection, dryRun);
      out.println(
          (result.dryRun() ? "would replay " : "replayed ")
              + (result.dryRun() ? result.selected() : result.replayed())
              + " outbox rows (seq "
              + result.firstSeq()
              + ".."
              + result.lastSeq()
              + ")"
              + (result.dryRun() ? "" : " in " + result.chunks() + " transactions"));
      return 0;
    } catch (InvalidReplayException e) {
      err.println("replay refused: " + describe(e));
      return 2;
    } catch (ReplayBusyException | DatabaseException e) {
      err.println("replay failed: " + e.getMessage());
      return 1;
    }
  }

  private static String describe(InvalidReplayException e) {
    return e.field() == null ? e.getMessage() : "--" + option(e.field()) + ": " + e.getMessage();
  }

  /** The command-line option of an API field: fromSeq → from-seq. */
  private static String option(String field) {
    return field.replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT);
  }
}
