package dev.vigil.bench;

/** Suite and case names the headlines look up; the suites name their results with these. */
public final class Cases {
  public static final String LIMIT = "limit";
  public static final String LIMIT_CASE = "outbox rows, " + Suite.WRITERS + " writers";
  public static final String POLLING = "polling";
  public static final String RELAY = "relay";
  public static final String RELAY_SATURATION = "vigil saturation";
  public static final String RELAY_AT_90 = "vigil @0.9x limit";
  public static final String CATCHUP = "catchup";
  public static final String CATCHUP_CASE = "vigil backlog";
  public static final String DELIVERY = "delivery";
  public static final String EXACTLY_ONCE = "exactly-once";
  public static final String AT_LEAST_ONCE = "at-least-once";

  /** The delivery suite's live case: the offered rate. */
  public static final String DELIVERY_LIVE = "@1000/s";

  public static final String DELIVERY_BACKLOG = "backlog";
  public static final String IDLE_OUTBOX = "idle-outbox";
  public static final String IDLE_OUTBOX_CASE = "writes elsewhere, outbox idle";
  public static final String RECORDER = "recorder";
  public static final String PROBING = "probing";
  public static final String PROBING_CASE = "10000 targets every 10 s";
  public static final String PROBING_MIXED = "probing-mixed";
  public static final String PROBING_MIXED_CASE = "mixed http+body / tcp / dns every 10 s";
  public static final String PROBING_LOCATIONS = "probing-locations";
  public static final String DETECT = "detect";
  public static final String E2E = "e2e";
  public static final String E2E_CASE = "FAILED @1000/s";

  /** Prefix of the e2e cases whose relay and notifier run as their own processes. */
  public static final String E2E_PROCESSES = "processes ";

  public static final String E2E_PROCESSES_CASE = E2E_PROCESSES + E2E_CASE;
  public static final String NOTIFIER = "notifier";
  public static final String NOTIFIER_CASE = "deliveries";
  public static final String DEBEZIUM_SERVER = "debezium-server";
  public static final String STORM = "storm";
  public static final String STORM_CHANNELS = "storm-channels";
  public static final String FOOTPRINT = "footprint";
  public static final String RELAY_CPU = "relay-cpu";

  private Cases() {}

  /** Name of a relay case at a fixed offered rate. */
  public static String relayAt(int rate) {
    return "vigil @" + rate + "/s";
  }

  /** Name of a delivery-mode case ({@code exactly-once} or {@code at-least-once}). */
  public static String delivery(String mode, String what) {
    return mode + " " + what;
  }

  /** Name of a relay CPU case: {@code relay cpu ms per 1,000 events (jvm / walsender)}. */
  public static String relayCpu(String mode, String what) {
    return "relay cpu ms per 1,000 events (jvm / walsender), " + mode + " " + what;
  }

  /** Name of a recorder case. */
  public static String recorder(int connections, int services) {
    return "recorder " + connections + " conn, " + services + " services";
  }

  /**
   * Name of a storm-channels case: grouping ({@code grouped} or {@code one per event}), channel and
   * kind, e.g. {@code grouped slack FAILED}.
   */
  public static String stormChannel(boolean grouped, String channel, String kind) {
    return (grouped ? "grouped " : "one per event ") + channel + " " + kind;
  }

  /** Name of an incident-storm case ({@code FAILED} or {@code RECOVERED}). */
  public static String storm(String kind) {
    return kind + " storm";
  }

  /** Name of a footprint case: a service ({@code monitor}, …) idle or at load. */
  public static String footprint(String service, boolean atLoad) {
    return service + (atLoad ? " @1000/s" : " idle");
  }

  /** Name of a recorder case that records {@code batch} results per transaction. */
  public static String recorderBatched(int connections, int services, int batch) {
    return "recorder batched " + batch + ", " + connections + " conn, " + services + " services";
  }

  /** Name of a probing case: {@code targets} probed from {@code locations} places each. */
  public static String probingLocations(int locations, int targets) {
    return targets
        + " targets every 10 s, "
        + locations
        + (locations == 1 ? " location" : " locations");
  }

  /** Name of a time-to-detect case, with or without a retry interval of 2 s. */
  public static String detect(boolean retryInterval) {
    return "failure → FAILED, interval 10 s, threshold 3"
        + (retryInterval ? ", retryInterval 2 s" : "");
  }

  /** Name of a plain-insert case. */
  public static String plain(int connections) {
    return "plain insert " + connections + " conn";
  }
}
