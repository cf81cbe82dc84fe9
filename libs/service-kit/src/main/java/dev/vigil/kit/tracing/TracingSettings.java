package dev.vigil.kit.tracing;

import dev.vigil.kit.ConfigDef;
import dev.vigil.kit.Setting;
import java.net.URI;
import java.util.List;

/**
 * The tracing settings of every service that starts spans, declared once: where spans are exported
 * over OTLP/HTTP, if anywhere. Trace context is passed on (outbox column, Kafka header, webhook
 * header) whether or not spans are exported.
 */
public final class TracingSettings {
  public static final Setting<String> OTLP_ENDPOINT =
      Setting.string("VIGIL_TRACING_OTLP_ENDPOINT", "")
          .check(TracingSettings::isHttpUrl, "must be an http:// or https:// URL")
          .doc(
              "OTLP/HTTP traces endpoint spans are exported to (e.g."
                  + " http://otel-collector:4318/v1/traces); empty = no export. The W3C traceparent"
                  + " is written with each event and sent on webhooks either way.");
  public static final Setting<Integer> OTLP_TIMEOUT_SECONDS =
      Setting.integer("VIGIL_TRACING_OTLP_TIMEOUT_SECONDS", 10)
          .range("1", "60")
          .doc("Longest wait for the OTLP endpoint per export batch (spans are dropped after it).");

  /** The settings, in README order. */
  public static final List<Setting<?>> ALL = List.of(OTLP_ENDPOINT, OTLP_TIMEOUT_SECONDS);

  private TracingSettings() {}

  /** {@code definition} with the tracing settings. */
  public static ConfigDef addTo(ConfigDef definition) {
    return definition.and(ALL);
  }

  private static boolean isHttpUrl(String value) {
    try {
      URI uri = URI.create(value);
      return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
          && uri.getHost() != null
          && uri.getUserInfo() == null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
