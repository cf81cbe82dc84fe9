package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What targets' {@code dependsOn} means for the recording path and the announcer, in three
 * statements: which parents of an opening service are down, the impact of a parent's transition on
 * its children, and the release of children's held-back FAILEDs when a parent's incident closes.
 *
 * <p>A parent is down while it has an open incident whose FAILED was written (or is held back by a
 * down parent of its own). A parent that is failing but not confirmed yet holds a child's FAILED
 * for a bounded time (see {@link Parents#unconfirmed}). The first statement takes a share lock on
 * the down parents' incident rows, so a parent's RECOVERED that commits meanwhile waits for the
 * child's transaction, and its {@link #release} (a later statement of the parent's transaction)
 * sees the child's held incident: no FAILED is held back for ever.
 */
public final class Dependencies {
  // Per child: its parents, the first one down, and per parent how long its own FAILED may take
  // from its first failure (the confirm bound) and whether its stored health is DOWN. A parent is
  // down while its incident is open and its FAILED was written, or held back for a parent of its
  // own (not_before 'infinity': a chain of dependencies holds every level below a down parent).
  private static final String PARENTS =
      """
      select c.name, c.depends_on,
             (select min(p.service) from incidents p
               where p.service = any(c.depends_on) and p.closed_at is null
                 and (p.announced_at is not null or p.not_before = 'infinity')),
             coalesce(array_agg(t.name order by t.name) filter (where t.name is not null), '{}'),
             coalesce(array_agg((t.failure_threshold + 1)::bigint
                                * coalesce(t.retry_interval_ms, t.interval_ms) + t.timeout_ms
                                order by t.name) filter (where t.name is not null), '{}'),
             coalesce(array_agg(h.status = 'DOWN' order by t.name)
                      filter (where t.name is not null), '{}')
        from targets c
        left join targets t on t.name = any(c.depends_on)
        left join health_status h on h.service = t.name
       where c.name = any(?::text[])
       group by c.name, c.depends_on
      """;

  private static final String LOCK_DOWN_PARENTS =
      """
      select p.id from incidents p
       where p.service = any(?::text[]) and p.closed_at is null
         and (p.announced_at is not null or p.not_before = 'infinity')
       order by p.id
         for share
      """;

  // A child's status is the one its health row will have when the transaction commits: the last
  // status this plan gives it where the plan has results of it (its health row is written later,
  // in the same statement as the parent's event), the stored one otherwise.
  private static final String IMPACT =
      """
      select d.parent, count(*), (array_agg(c.name order by c.name))[1:%d]
        from targets c
        cross join lateral unnest(c.depends_on) as d(parent)
        left join health_status h on h.service = c.name
        left join unnest(?::text[], ?::text[]) as n(service, status) on n.service = c.name
       where c.depends_on && ?::text[] and d.parent = any(?::text[])
         and coalesce(n.status, h.status) = 'DOWN'
       group by d.parent
      """
          .formatted(AlertEvent.MAX_IMPACT_NAMES);

  // Held-back FAILEDs of children of the given parents become due one settle period from now (the
  // announcer checks again then whether a parent is still down, and whether the child is quiet).
  // One held for a parent becomes due exactly then, not earlier: a child held while its parent
  // was not confirmed yet keeps a bound that may end within the settle period, and paging it then
  // would skip the settle (children often recover just after their parent).
  private static final String RELEASE =
      """
      update incidents i
         set not_before = case when i.held_reason like 'parent %' then s.due
                               else least(coalesce(i.not_before, 'infinity'), s.due) end
        from targets t
        cross join lateral (
          select ?::timestamptz + make_interval(
                     secs => coalesce(t.dependency_settle_ms, t.interval_ms) / 1000.0) as due) s
       where t.depends_on && ?::text[] and i.service = t.name
         and i.closed_at is null and i.announced_at is null
      """;

  /**
   * A service's parents, the first of them that is down (null: none), and what is known of the
   * others' own failures.
   *
   * @param dependsOn the parents listed on the target
   * @param down the first parent (by name) with an open incident whose FAILED was written or is
   *     held back by a parent of its own, or null
   * @param confirmMs for each parent that is a target, in name order: the longest its FAILED may
   *     take from its first failure: one more than its failure threshold times its (retry)
   *     interval, plus its timeout (the extra interval covers a probe that starts late)
   * @param failing the parents (that are targets) whose stored health is DOWN
   */
  record Parents(
      List<String> dependsOn, String down, Map<String, Long> confirmMs, Set<String> failing) {
    static final Parents NONE = new Parents(List.of(), null, Map.of(), Set.of());

    /** The reason recorded on a FAILED this parent holds back. */
    String reason() {
      return "parent " + down + " is down";
    }

    /**
     * A parent that is failing but whose FAILED is not written yet, and until when the child's
     * FAILED waits for it: the child's incident opening plus the longest confirm bound of its
     * failing parents. Waiting so keeps a child probed before its parent (or recorded before it
     * when monitors fall behind) from paging ahead of the parent; the bound keeps a parent that
     * never reaches its threshold from holding the child back for long.
     *
     * @param planned the status this recording writes for a parent it has a result of (its stored
     *     health is overtaken by it), or null
     */
    Optional<Held> unconfirmed(Instant openedAt, Function<String, ProbeStatus> planned) {
      String first = null;
      long bound = 0;
      for (Map.Entry<String, Long> parent : confirmMs.entrySet()) {
        ProbeStatus status = planned.apply(parent.getKey());
        boolean down =
            status != null ? status == ProbeStatus.DOWN : failing.contains(parent.getKey());
        if (down) {
          first = first == null ? parent.getKey() : first;
          bound = Math.max(bound, parent.getValue());
        }
      }
      return first == null
          ? Optional.empty()
          : Optional.of(
              new Held(
                  "parent " + first + " is failing (not confirmed yet)",
                  openedAt.plusMillis(bound)));
    }
  }

  /** Why a FAILED waits and until when. */
  record Held(String reason, Instant until) {}

  private Dependencies() {}

  /** The parents of each of {@code services} (only those with parents are in the map). */
  static Map<String, Parents> parents(Connection connection, List<String> services)
      throws SQLException {
    Map<String, Parents> found = new HashMap<>();
    List<String> down = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(PARENTS)) {
      statement.setArray(1, connection.createArrayOf("text", services.toArray()));
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          Parents parents = read(rs);
          if (!parents.dependsOn().isEmpty()) {
            found.put(rs.getString(1), parents);
            if (parents.down() != null) {
              down.add(parents.down());
            }
          }
        }
      }
    }
    if (down.isEmpty()) {
      return found;
    }
    // Lock the down parents' incidents, then read again: a parent whose RECOVERED committed while
    // we waited is up now (the second read is a new statement, so it sees that commit).
    try (PreparedStatement statement = connection.prepareStatement(LOCK_DOWN_PARENTS)) {
      statement.setArray(1, connection.createArrayOf("text", down.stream().distinct().toArray()));
      statement.executeQuery().close();
    }
    Map<String, Parents> again = new HashMap<>();
    try (PreparedStatement statement = connection.prepareStatement(PARENTS)) {
      statement.setArray(1, connection.createArrayOf("text", found.keySet().toArray()));
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          again.put(rs.getString(1), read(rs));
        }
      }
    }
    return again;
  }

  private static Parents read(ResultSet rs) throws SQLException {
    String[] targets = (String[]) rs.getArray(4).getArray();
    Long[] bounds = (Long[]) rs.getArray(5).getArray();
    Boolean[] down = (Boolean[]) rs.getArray(6).getArray();
    SortedMap<String, Long> confirmMs = new TreeMap<>();
    Set<String> failing = new HashSet<>();
    for (int i = 0; i < targets.length; i++) {
      confirmMs.put(targets[i], bounds[i]);
      if (Boolean.TRUE.equals(down[i])) {
        failing.add(targets[i]);
      }
    }
    return new Parents(
        List.of((String[]) rs.getArray(2).getArray()),
        rs.getString(3),
        Collections.unmodifiableSortedMap(confirmMs),
        Set.copyOf(failing));
  }

  /** The children down with each of {@code parents}, as stored (for a transaction writing none). */
  static Map<String, AlertEvent.Impact> impact(Connection connection, List<String> parents)
      throws SQLException {
    return impact(connection, parents, Map.of());
  }

  /**
   * The children down with each of {@code parents} (only those with any are in the map) once the
   * caller's transaction commits: {@code planned} is the status the caller is about to write for
   * some services (a child failing in the same batch as its parent counts, one recovering in it
   * does not), every other child's is its stored health status.
   */
  static Map<String, AlertEvent.Impact> impact(
      Connection connection, List<String> parents, Map<String, ProbeStatus> planned)
      throws SQLException {
    Map<String, AlertEvent.Impact> impact = new HashMap<>();
    Array names = connection.createArrayOf("text", parents.toArray());
    List<String> services = List.copyOf(planned.keySet());
    try (PreparedStatement statement = connection.prepareStatement(IMPACT)) {
      statement.setArray(1, connection.createArrayOf("text", services.toArray()));
      statement.setArray(
          2,
          connection.createArrayOf(
              "text", services.stream().map(s -> planned.get(s).name()).toArray()));
      statement.setArray(3, names);
      statement.setArray(4, names);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          impact.put(
              rs.getString(1),
              new AlertEvent.Impact(rs.getInt(2), List.of((String[]) rs.getArray(3).getArray())));
        }
      }
    }
    return impact;
  }

  /**
   * Makes the held-back FAILEDs of the children of {@code parents} due one settle period after
   * {@code now}; called in the transaction that closes the parents' incidents (or deletes them).
   */
  public static void release(Connection connection, List<String> parents, Instant now)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(RELEASE)) {
      statement.setObject(1, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
      statement.setArray(2, connection.createArrayOf("text", parents.toArray()));
      statement.executeUpdate();
    }
  }
}
