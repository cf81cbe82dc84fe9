package dev.vigil.bench.dbzserver;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import dev.vigil.bench.outbox.OutboxWriters;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * Stock Debezium Server as the baseline a team would otherwise deploy: Vigil's relay (in this JVM,
 * as the other suites run it, and as its own process, as Debezium Server runs), Debezium Server
 * with its defaults and Debezium Server with {@code poll.interval.ms=10}, one at a time, on the
 * same database, outbox table and writers, each through its own replication slot into its own
 * log-append-time topic. Each contender runs all its cases (see {@link ContenderCases}); its slot
 * is dropped before the next one starts, so the next one begins at the current WAL position.
 */
public final class DebeziumServerSuite implements Suite {
  public static final String NAME = Cases.DEBEZIUM_SERVER;
  private static final String DATABASE = "bench_dbz";

  @Override
  public void run(BenchContext ctx) {
    Path moduleDir =
        Files.isDirectory(Path.of("tools/benchmarks")) ? Path.of("tools/benchmarks") : Path.of(".");
    Path dist = ServerDist.find(moduleDir.resolve("target"));
    if (dist == null) {
      ctx.report()
          .note(
              "suite '"
                  + NAME
                  + "' skipped: Debezium Server is not unpacked in tools/benchmarks/target; build"
                  + " with ./mvnw -pl tools/benchmarks -am package -DskipTests -Pdebezium-server");
      return;
    }
    DataSource db = ctx.infra().monitorDatabase(DATABASE, WRITERS + 1);
    Slots.createPublication(db);
    OutboxWriters writers = new OutboxWriters(db, "outbox", WRITERS, SERVICES);
    OutboxWriters saturationWriters =
        new OutboxWriters(db, "outbox", ContenderCases.SATURATION_WRITERS, SERVICES);
    OutboxWriters limitWriters =
        new OutboxWriters(
            ctx.infra().monitorDatabase("bench_limit", WRITERS),
            "outbox",
            ContenderCases.SATURATION_WRITERS,
            SERVICES);
    Path runDir = ctx.infra().postgresDataDir().getParent().getParent().resolve("dbz");
    List<Contender> contenders =
        List.of(
            Contender.vigil(ctx.infra(), DATABASE),
            Contender.vigilProcess(
                ctx.infra(), DATABASE, moduleDir.resolve("target/lib"), runDir.resolve("vigil")),
            Contender.server(
                ServerConfig.DEFAULTS, dist, runDir.resolve("default"), ctx.infra(), DATABASE),
            Contender.server(
                ServerConfig.POLL_10MS, dist, runDir.resolve("poll10"), ctx.infra(), DATABASE));
    if (ctx.options().quick()) { // smoke run: one Vigil, one server
      contenders = List.of(contenders.get(0), contenders.get(3));
    }
    for (Contender contender : contenders) {
      ctx.infra().createTopic(contender.topic(), PARTITIONS);
      try {
        new ContenderCases(ctx, contender, writers, saturationWriters, limitWriters).run();
      } finally {
        Slots.drop(db, contender.slot(), Duration.ofSeconds(60));
      }
    }
    ctx.report()
        .note(
            NAME
                + ": Debezium Server "
                + ServerDist.version(dist)
                + " from "
                + dist
                + "; its logs, configurations and offsets under "
                + runDir);
  }
}
