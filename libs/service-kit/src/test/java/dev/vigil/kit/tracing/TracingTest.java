package dev.vigil.kit.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.kit.CommonSettings;
import dev.vigil.kit.ConfigDef;
import dev.vigil.kit.ConfigException;
import dev.vigil.kit.ServiceConfig;
import dev.vigil.kit.Settings;
import io.opentelemetry.api.trace.Span;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TracingTest {
  private static final String PUSHER = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void withoutAnExporterSpansStillHaveIdsOfTheirOwnAndContinueTheParent() {
    try (Tracing tracing = Tracing.start("test", config(Map.of()))) {
      Span child =
          tracing.tracer().spanBuilder("child").setParent(Tracing.parent(PUSHER)).startSpan();
      TraceParent written = Tracing.traceParent(child).orElseThrow();
      child.end();
      assertThat(written.traceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
      assertThat(written.spanId()).isNotEqualTo("00f067aa0ba902b7");
      Span root = tracing.tracer().spanBuilder("root").startSpan();
      assertThat(Tracing.traceParent(root)).isPresent();
      root.end();
    }
  }

  @Test
  void theOtlpEndpointMustBeAnHttpUrlWithoutCredentials() {
    for (String bad : new String[] {"collector:4318", "ftp://c/v1/traces", "http://u:p@c:4318/"}) {
      assertThatThrownBy(() -> config(Map.of("VIGIL_TRACING_OTLP_ENDPOINT", bad)))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("VIGIL_TRACING_OTLP_ENDPOINT");
    }
    try (Tracing tracing =
        Tracing.start(
            "test",
            config(
                Map.of(
                    "VIGIL_TRACING_OTLP_ENDPOINT",
                    "http://127.0.0.1:1/v1/traces",
                    "VIGIL_TRACING_OTLP_TIMEOUT_SECONDS",
                    "1")))) {
      Span span = tracing.tracer().spanBuilder("exported").startSpan();
      assertThat(Tracing.traceParent(span)).isPresent();
      span.end();
    }
  }

  private static ServiceConfig config(Map<String, String> values) {
    ConfigDef definition = ConfigDef.of(CommonSettings.INSTANCE_ID).with(TracingSettings::addTo);
    return new ServiceConfig(definition, new Settings(values)) {};
  }
}
