package dev.vigil.monitor.status;

/**
 * The SQL the status page's reads share for targets probed from several locations: whether their
 * monitoring is degraded and each location's state, and the service state that never shows degraded
 * monitoring as UP. Constant text only, formatted into the page queries.
 */
final class LocationSql {
  private LocationSql() {}

  /**
   * Per target probed from several locations (a lateral join on {@code t}): whether its monitoring
   * is degraded (fewer fresh locations than the quorum), each location's state, and the last errors
   * of the fresh locations that are down (left out of pages without details). Null for a target
   * probed from one place.
   */
  static final String LOCATIONS =
      """
      left join lateral (
          select count(*) filter (where f.fresh) < coalesce(t.quorum, cardinality(t.locations) / 2 + 1)
                     as degraded,
                 string_agg(x.location || ' ' ||
                            case when l.recorded_at is null then 'unseen'
                                 when not f.fresh then 'stale'
                                 when l.failing then 'failing'
                                 when l.last_status = 'DOWN' then 'counting'
                                 else 'up' end, ' · ' order by x.location) as location_states,
                 string_agg(x.location || ': ' || coalesce(l.last_error, 'down'), ' · '
                            order by x.location)
                     filter (where f.fresh and l.last_status = 'DOWN') as location_errors
            from (select unnest(t.locations) as location
                  union
                  select location from location_state where service = t.name) x
            left join location_state l on l.service = t.name and l.location = x.location
           cross join lateral (
                 select coalesce(l.recorded_at >= now() - make_interval(
                            secs => (3 * t.interval_ms + t.timeout_ms) / 1000.0), false) as fresh) f
           where t.locations is not null and t.enabled
      ) loc on true""";

  /** A service's state: degraded monitoring is never shown as UP (DOWN stays DOWN). */
  static final String STATE =
      """
      case when not t.enabled then 'DISABLED'
           when loc.degraded and h.status is distinct from 'DOWN' then 'DEGRADED'
           when h.status is null then 'UNKNOWN'
           else h.status end""";
}
