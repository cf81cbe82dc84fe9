package dev.vigil.monitor.api;

import dev.vigil.kit.http.Health;
import dev.vigil.monitor.alert.LocationReads;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** How the API and /health show targets probed from several locations. */
final class LocationViews {
  private LocationViews() {}

  /**
   * Adds a located target's quorum, monitoring state and locations. Degraded monitoring replaces an
   * UP state (it is not known to be up: an outage could not open an incident); DOWN stays.
   */
  static void add(Map<String, Object> service, LocationReads.Target target) {
    if (target == null) {
      return;
    }
    service.put("quorum", target.quorum());
    service.put("monitoring", target.degraded() ? "degraded" : "ok");
    if (target.degraded() && !"DOWN".equals(service.get("state"))) {
      service.put("state", "DEGRADED");
    }
    List<Map<String, Object>> each = new ArrayList<>();
    for (LocationReads.Location l : target.locations()) {
      Map<String, Object> location = new LinkedHashMap<>();
      location.put("location", l.location());
      location.put("state", l.state());
      location.put("lastError", l.lastError());
      location.put("recordedAt", l.recordedAt());
      each.add(location);
    }
    service.put("locations", each);
  }

  /**
   * The {@code locations} check of /health: UP (this instance works; another location's instances
   * are what is missing), with a detail naming up to 20 targets whose monitoring is degraded.
   */
  static Health.Check health(List<String> names) {
    if (names.isEmpty()) {
      return Health.Check.of(true);
    }
    List<String> shown = names.subList(0, Math.min(20, names.size()));
    return new Health.Check(
        Health.UP,
        "degraded monitoring, fewer fresh locations than the quorum (see /api/services"
            + " locations): "
            + String.join(", ", shown),
        Map.of("degraded", shown));
  }
}
