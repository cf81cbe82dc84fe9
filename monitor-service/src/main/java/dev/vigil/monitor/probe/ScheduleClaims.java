package dev.vigil.monitor.probe;

/**
 * The one claim statement on {@code probe_schedule} that probes ({@link Leases}) and missed
 * heartbeats ({@link MissedHeartbeats}) share: due rows whose lease is free or expired are taken
 * with {@code FOR UPDATE SKIP LOCKED}, at most {@code limit}, and leased to one owner and token.
 */
final class ScheduleClaims {
  private ScheduleClaims() {}

  /**
   * The statement. Only constant SQL fragments of the callers go in, never outside input. Its
   * parameters, in order: those of {@code due}, the limit, the owner, the token, those of {@code
   * leaseUntil}.
   *
   * @param due which targets are due (conditions on {@code t} targets and {@code s} schedule)
   * @param leaseUntil how long from now the lease lasts (an interval expression)
   * @param returning the columns each claimed row returns
   */
  static String sql(String due, String leaseUntil, String returning) {
    return sql("probe_schedule", "s.target = due.target", due, leaseUntil, returning);
  }

  /**
   * The same statement on {@code table} ({@code probe_schedule} or {@code location_schedule}),
   * whose claimed rows {@code key} matches to the due ones (constant SQL only).
   */
  static String sql(String table, String key, String due, String leaseUntil, String returning) {
    return """
        with due as (
            select s.*
              from %s s
              join targets t on t.name = s.target
             where %s
               and (s.lease_until is null or s.lease_until < now())
             order by s.next_due_at
             limit ?
               for update of s skip locked
        )
        update %s s
           set lease_owner = ?, lease_token = ?,
               lease_until = now() + %s
          from due, targets t
         where %s and t.name = s.target
        returning %s
        """
        .formatted(table, due, table, leaseUntil, key, returning);
  }
}
