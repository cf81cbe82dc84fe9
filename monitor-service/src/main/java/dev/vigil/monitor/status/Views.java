package dev.vigil.monitor.status;

import dev.vigil.monitor.status.StatusReads.CheckRow;
import dev.vigil.monitor.status.StatusReads.HourRow;
import dev.vigil.monitor.status.StatusReads.IncidentRow;
import dev.vigil.monitor.status.StatusReads.ServiceRow;
import dev.vigil.monitor.status.StatusReads.Snapshot;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Turns a {@link Snapshot} into what the templates show. Every value is plain text (templates
 * escape it); outside text is made printable and bounded here ({@link Format#text}).
 */
final class Views {
  private Views() {}

  /** The scope of the overview page and its fragment. */
  record Overview(
      String generated,
      String generatedIso,
      String lastCheck,
      String lastCheckIso,
      String summary,
      String summaryClass,
      List<ServiceView> services,
      List<IncidentView> incidents,
      boolean noServices,
      boolean noIncidents,
      String incidentsShown,
      Paging paging) {}

  /**
   * Where the overview's page sits among the services its filter selects, with plain links (no
   * script needed) to the neighbouring pages and to each state filter.
   */
  record Paging(
      String query,
      String shown,
      String previousHref,
      String nextHref,
      String selfHref,
      List<FilterLink> filters,
      boolean noMatches) {}

  /** A link to the overview filtered by one state (or none); {@code current} when it is shown. */
  record FilterLink(String label, String href, boolean current) {}

  /** The scope of one service's page and its fragment. */
  record ServicePage(
      ServiceView service,
      String generated,
      String generatedIso,
      Chart chart,
      List<IncidentView> incidents,
      List<CheckView> checks,
      boolean noIncidents,
      boolean noChecks,
      ErrorBudget objective) {}

  record ServiceView(
      String name,
      String href,
      String kind,
      boolean disabled,
      String state,
      String stateClass,
      String since,
      String sinceIso,
      String sinceFor,
      String lastCheck,
      String lastCheckIso,
      String latency,
      String error,
      String incidentSince,
      String day,
      String dayGrade,
      String week,
      String weekGrade,
      String month,
      String monthGrade,
      Chart chart,
      String locations,
      String locationErrors) {}

  record IncidentView(
      String service,
      String href,
      boolean open,
      String opened,
      String openedIso,
      String closed,
      String closedIso,
      String duration,
      String firstError,
      String lastError,
      int probeCount,
      String acknowledgedBy,
      String acknowledged,
      String acknowledgedIso,
      String heldParent,
      List<IncidentView> suppressed) {}

  record CheckView(
      String time,
      String timeIso,
      String status,
      String statusClass,
      String latency,
      String httpStatus,
      String error,
      String source) {}

  static Overview overview(OverviewReads.Page page, OverviewQuery query) {
    return overview(page, query, true);
  }

  /**
   * The overview; without {@code details} no DOWN reason (they name hosts, ports and response
   * values) and no name of who acknowledged is shown.
   */
  static Overview overview(OverviewReads.Page page, OverviewQuery query, boolean details) {
    Snapshot snapshot = details ? page.snapshot() : withoutDetails(page.snapshot());
    Map<String, List<HourRow>> hours =
        snapshot.hours().stream().collect(Collectors.groupingBy(HourRow::service));
    List<ServiceView> services =
        snapshot.services().stream()
            .map(
                row ->
                    service(
                        page.inMaintenance().contains(row.name()) ? inMaintenance(row) : row,
                        snapshot.now(),
                        Chart.hourly(
                            row.name(),
                            hours.getOrDefault(row.name(), List.of()),
                            snapshot.now(),
                            240,
                            40)))
            .toList();
    long down = page.totals().down();
    long maintenance = page.totals().inMaintenance();
    Instant lastCheck = page.totals().lastCheck();
    String inMaintenance =
        maintenance == 0
            ? ""
            : " · "
                + maintenance
                + (maintenance == 1 ? " service is" : " services are")
                + " in maintenance";
    String summary =
        page.totals().services() == 0
            ? "No services are monitored yet"
            : (down == 0
                    ? "All services are up"
                    : down + (down == 1 ? " service is down" : " services are down"))
                + inMaintenance;
    long listed = snapshot.incidents().size();
    OverviewReads.IncidentCounts counts = page.incidentCounts();
    String incidentsShown =
        listed >= counts.total()
            ? ""
            : "Showing "
                + listed
                + " of "
                + counts.total()
                + " incidents of the last 30 days ("
                + Math.min(listed, counts.ongoing())
                + " of "
                + counts.ongoing()
                + " ongoing, newest first)";
    return new Overview(
        Format.time(snapshot.now()),
        Format.iso(snapshot.now()),
        lastCheck == null ? "never" : Format.time(lastCheck),
        Format.iso(lastCheck),
        summary,
        down == 0 ? "up" : "down",
        services,
        incidents(snapshot),
        page.totals().services() == 0,
        snapshot.incidents().isEmpty(),
        incidentsShown,
        paging(page, query, services.size()));
  }

  private static Paging paging(OverviewReads.Page page, OverviewQuery query, int onPage) {
    long matching = page.matching();
    int pages =
        (int) Math.max(1, (matching + OverviewQuery.PAGE_SIZE - 1) / OverviewQuery.PAGE_SIZE);
    String shown =
        onPage == 0
            ? (matching == 0
                ? "No service matches."
                : "Page " + query.page() + " is past the last page (" + pages + ").")
            : "Services "
                + (query.offset() + 1)
                + "–"
                + (query.offset() + onPage)
                + " of "
                + matching
                + " · page "
                + query.page()
                + " of "
                + pages;
    List<FilterLink> filters = new java.util.ArrayList<>();
    filters.add(new FilterLink("all", query.withState(null).href(), query.state() == null));
    for (String state : List.of("DOWN", "DEGRADED", "UNKNOWN", "UP", "DISABLED")) {
      filters.add(
          new FilterLink(
              state.toLowerCase(java.util.Locale.ROOT),
              query.withState(state).href(),
              state.equals(query.state())));
    }
    return new Paging(
        query.prefix(),
        shown,
        query.page() > 1 ? query.onPage(Math.min(query.page() - 1, pages)).href() : null,
        query.page() < pages ? query.onPage(query.page() + 1).href() : null,
        query.href(),
        filters,
        onPage == 0);
  }

  /** {@code row} shown as in maintenance: down, but inside a window, so not red and not counted. */
  private static ServiceRow inMaintenance(ServiceRow row) {
    return new ServiceRow(
        row.name(),
        row.kind(),
        row.enabled(),
        "MAINTENANCE",
        row.since(),
        row.checkedAt(),
        row.latencyMs(),
        row.error(),
        row.incidentOpenedAt(),
        row.day(),
        row.week(),
        row.month(),
        row.locations(),
        row.locationErrors());
  }

  /** {@code snapshot} without DOWN reasons and without who acknowledged. */
  static Snapshot withoutDetails(Snapshot snapshot) {
    return new Snapshot(
        snapshot.now(),
        snapshot.services().stream()
            .map(
                r ->
                    new ServiceRow(
                        r.name(),
                        r.kind(),
                        r.enabled(),
                        r.state(),
                        r.since(),
                        r.checkedAt(),
                        r.latencyMs(),
                        null,
                        r.incidentOpenedAt(),
                        r.day(),
                        r.week(),
                        r.month(),
                        r.locations(),
                        null))
            .toList(),
        snapshot.hours(),
        snapshot.incidents().stream()
            .map(
                i ->
                    new IncidentRow(
                        i.id(),
                        i.service(),
                        i.openedAt(),
                        i.closedAt(),
                        null,
                        null,
                        i.probeCount(),
                        null,
                        null,
                        i.heldParent()))
            .toList(),
        snapshot.checks().stream()
            .map(
                c ->
                    new CheckRow(
                        c.id(),
                        c.status(),
                        c.recordedAt(),
                        c.latencyMs(),
                        c.httpStatus(),
                        null,
                        c.source()))
            .toList(),
        snapshot.objective());
  }

  /** The page of the snapshot's only service, with every detail. */
  static ServicePage servicePage(Snapshot snapshot) {
    return servicePage(snapshot, true);
  }

  /**
   * The page of the snapshot's only service; without {@code details} as {@link #withoutDetails}.
   */
  static ServicePage servicePage(Snapshot snapshot, boolean details) {
    if (!details) {
      snapshot = withoutDetails(snapshot);
    }
    ServiceRow row = snapshot.services().get(0);
    Chart chart = Chart.checks(row.name(), snapshot.checks(), 720, 160);
    List<CheckView> checks = snapshot.checks().stream().limit(50).map(Views::check).toList();
    return new ServicePage(
        service(row, snapshot.now(), chart),
        Format.time(snapshot.now()),
        Format.iso(snapshot.now()),
        chart,
        incidents(snapshot),
        checks,
        snapshot.incidents().isEmpty(),
        checks.isEmpty(),
        snapshot.objective());
  }

  private static ServiceView service(ServiceRow row, Instant now, Chart chart) {
    String state = !row.enabled() ? "DISABLED" : row.state();
    return new ServiceView(
        row.name(),
        href(row.name()),
        row.kind(),
        !row.enabled(),
        state,
        state.toLowerCase(Locale.ROOT),
        Format.time(row.since()),
        Format.iso(row.since()),
        row.since() == null ? "" : Format.duration(Duration.between(row.since(), now)),
        row.checkedAt() == null ? "never" : Format.time(row.checkedAt()),
        Format.iso(row.checkedAt()),
        row.latencyMs() == null ? "" : row.latencyMs() + " ms",
        Format.text(row.error(), Format.MAX_ERROR),
        Format.time(row.incidentOpenedAt()),
        row.day().percent(),
        row.day().grade(),
        row.week().percent(),
        row.week().grade(),
        row.month().percent(),
        row.month().grade(),
        chart,
        row.locations() == null ? null : Format.text(row.locations(), Format.MAX_ERROR),
        row.locationErrors() == null ? null : Format.text(row.locationErrors(), Format.MAX_ERROR));
  }

  /**
   * The incidents as listed, with each open incident held back by a parent whose own open incident
   * is listed grouped under that parent (not listed again on its own): one outage, one entry.
   */
  private static List<IncidentView> incidents(Snapshot snapshot) {
    java.util.Map<String, IncidentRow> openParents = new java.util.HashMap<>();
    snapshot.incidents().stream()
        .filter(i -> i.closedAt() == null)
        .forEach(i -> openParents.put(i.service(), i));
    java.util.Map<String, List<IncidentView>> children = new java.util.HashMap<>();
    List<IncidentRow> top = new java.util.ArrayList<>();
    for (IncidentRow row : snapshot.incidents()) {
      if (row.heldParent() != null && openParents.containsKey(row.heldParent())) {
        children
            .computeIfAbsent(row.heldParent(), p -> new java.util.ArrayList<>())
            .add(incident(row, snapshot.now(), List.of()));
      } else {
        top.add(row);
      }
    }
    return top.stream()
        .map(
            row ->
                incident(
                    row,
                    snapshot.now(),
                    row.closedAt() == null
                        ? children.getOrDefault(row.service(), List.of())
                        : List.of()))
        .toList();
  }

  private static IncidentView incident(
      IncidentRow row, Instant now, List<IncidentView> suppressed) {
    boolean open = row.closedAt() == null;
    return new IncidentView(
        row.service(),
        href(row.service()),
        open,
        Format.time(row.openedAt()),
        Format.iso(row.openedAt()),
        open ? "" : Format.time(row.closedAt()),
        Format.iso(row.closedAt()),
        Format.duration(Duration.between(row.openedAt(), open ? now : row.closedAt())),
        Format.text(row.firstError(), Format.MAX_ERROR),
        Format.text(row.lastError(), Format.MAX_ERROR),
        row.probeCount(),
        row.acknowledgedBy() == null ? null : Format.text(row.acknowledgedBy(), Format.MAX_ERROR),
        row.acknowledgedAt() == null ? "" : Format.time(row.acknowledgedAt()),
        Format.iso(row.acknowledgedAt()),
        row.heldParent() == null ? null : Format.text(row.heldParent(), Format.MAX_ERROR),
        suppressed);
  }

  private static CheckView check(CheckRow row) {
    return new CheckView(
        Format.time(row.recordedAt()),
        Format.iso(row.recordedAt()),
        row.status(),
        row.status().toLowerCase(Locale.ROOT),
        row.latencyMs() == null ? "" : row.latencyMs() + " ms",
        row.httpStatus() == null ? "" : row.httpStatus().toString(),
        Format.text(row.error(), Format.MAX_ERROR),
        row.source());
  }

  /** The service page's path; names are [a-z0-9_-] by the schema, and the template escapes it. */
  static String href(String service) {
    return "/status/services/"
        + java.net.URLEncoder.encode(service, java.nio.charset.StandardCharsets.UTF_8);
  }
}
