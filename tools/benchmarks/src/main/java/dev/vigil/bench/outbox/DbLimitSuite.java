package dev.vigil.bench.outbox;

import dev.vigil.bench.BenchContext;
import dev.vigil.bench.Cases;
import dev.vigil.bench.Suite;
import javax.sql.DataSource;

/**
 * Baseline (b): how fast the same writers commit the same outbox rows when no relay runs. This is
 * the ceiling a relay is compared with.
 */
public final class DbLimitSuite implements Suite {
  public static final String NAME = Cases.LIMIT;
  public static final String CASE = Cases.LIMIT_CASE;

  @Override
  public void run(BenchContext ctx) {
    DataSource db = ctx.infra().monitorDatabase("bench_limit", WRITERS);
    var opts = ctx.options();
    for (int writers : new int[] {WRITERS, 1}) {
      OutboxWriters w = new OutboxWriters(db, "outbox", writers, SERVICES);
      ctx.addMedian(
          NAME,
          "outbox rows, " + writers + " writer" + (writers > 1 ? "s" : ""),
          "no relay; one row per transaction, fsync on",
          rep -> OutboxRun.commitLimit(w, ctx));
    }
  }
}
