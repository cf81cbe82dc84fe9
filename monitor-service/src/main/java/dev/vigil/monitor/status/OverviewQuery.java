package dev.vigil.monitor.status;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Which part of the overview a request asks for: {@code ?page=} (1-based), {@code ?q=} (a service
 * name prefix) and {@code ?state=} (up, down, degraded, unknown or disabled). Every value comes
 * from outside and is checked here; a bad one is refused with its field and the reason (a 400),
 * never guessed.
 *
 * @param page the page, from 1
 * @param prefix name prefix, "" for every service
 * @param state one state only (upper case: UP, DOWN, DEGRADED, UNKNOWN, DISABLED), or null for all
 */
record OverviewQuery(int page, String prefix, String state) {
  /** Services on one overview page. */
  static final int PAGE_SIZE = 100;

  /** Highest page number accepted (10,000 services need 100). */
  static final int MAX_PAGE = 10_000;

  private static final Pattern PREFIX = Pattern.compile("[a-z0-9_-]{0,50}");
  private static final java.util.List<String> STATES =
      java.util.List.of("UP", "DOWN", "DEGRADED", "UNKNOWN", "DISABLED");

  static final OverviewQuery FIRST = new OverviewQuery(1, "", null);

  /** A query parameter that cannot be used: which one and why. */
  static final class Invalid extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String field;

    Invalid(String field, String reason) {
      super(reason);
      this.field = field;
    }

    String field() {
      return field;
    }
  }

  /**
   * Reads the three parameters (each null when absent).
   *
   * @throws Invalid naming the parameter and the reason
   */
  static OverviewQuery parse(String page, String q, String state) {
    int number = 1;
    if (page != null) {
      if (page.isEmpty() || page.length() > 6 || !page.chars().allMatch(Character::isDigit)) {
        throw new Invalid("page", "page must be a whole number from 1 to " + MAX_PAGE);
      }
      number = Integer.parseInt(page);
      if (number < 1 || number > MAX_PAGE) {
        throw new Invalid("page", "page must be a whole number from 1 to " + MAX_PAGE);
      }
    }
    String prefix = q == null ? "" : q.strip().toLowerCase(Locale.ROOT);
    if (!PREFIX.matcher(prefix).matches()) {
      throw new Invalid(
          "q", "q must be the start of a service name: at most 50 of a-z, 0-9, '-' and '_'");
    }
    String wanted = null;
    if (state != null && !state.isEmpty()) {
      wanted = state.toUpperCase(Locale.ROOT);
      if (!STATES.contains(wanted)) {
        throw new Invalid("state", "state must be one of up, down, degraded, unknown, disabled");
      }
    }
    return new OverviewQuery(number, prefix, wanted);
  }

  int offset() {
    return (page - 1) * PAGE_SIZE;
  }

  /** This query on another page. */
  OverviewQuery onPage(int other) {
    return new OverviewQuery(other, prefix, state);
  }

  /** This query with another state filter (null: all), from its first page. */
  OverviewQuery withState(String other) {
    return new OverviewQuery(1, prefix, other);
  }

  /**
   * The overview's address for this query (only the parameters that differ from the defaults), for
   * links and the refresh; every value in it was checked to need no escaping beyond the template's.
   */
  String href() {
    StringBuilder query = new StringBuilder();
    if (!prefix.isEmpty()) {
      query.append("&q=").append(prefix);
    }
    if (state != null) {
      query.append("&state=").append(state.toLowerCase(Locale.ROOT));
    }
    if (page > 1) {
      query.append("&page=").append(page);
    }
    return query.isEmpty() ? "/status" : "/status?" + query.substring(1);
  }
}
