package dev.vigil.kit.tracing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TraceParentTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String SPAN = "00f067aa0ba902b7";
  private static final String VALID = "00-" + TRACE + "-" + SPAN + "-01";

  @Test
  void readsTheSpecificationsExample() {
    TraceParent parsed = TraceParent.parse(VALID).orElseThrow();
    assertThat(parsed.traceId()).isEqualTo(TRACE);
    assertThat(parsed.spanId()).isEqualTo(SPAN);
    assertThat(parsed.sampled()).isTrue();
    assertThat(parsed).hasToString(VALID);
    assertThat(TraceParent.parse("00-" + TRACE + "-" + SPAN + "-00").orElseThrow().sampled())
        .isFalse();
  }

  @Test
  void aHigherVersionIsReadByItsFirstFieldsAndWrittenAsVersion00() {
    assertThat(TraceParent.parse("cc-" + TRACE + "-" + SPAN + "-01-what-comes-next"))
        .hasValueSatisfying(p -> assertThat(p).hasToString(VALID));
    assertThat(TraceParent.parse("01-" + TRACE + "-" + SPAN + "-01")).isPresent();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "garbage",
        // version ff is invalid; a version that is not two lower-case hex digits too
        "ff-" + TRACE + "-" + SPAN + "-01",
        "0g-" + TRACE + "-" + SPAN + "-01",
        "0-" + TRACE + "-" + SPAN + "-01",
        // all-zero ids
        "00-00000000000000000000000000000000-" + SPAN + "-01",
        "00-" + TRACE + "-0000000000000000-01",
        // upper-case hex
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-" + SPAN + "-01",
        "00-" + TRACE + "-00F067AA0BA902B7-01",
        "00-" + TRACE + "-" + SPAN + "-0A",
        // trailing bytes on version 00, even a dash; a higher version without a dash after
        "00-" + TRACE + "-" + SPAN + "-01 ",
        "00-" + TRACE + "-" + SPAN + "-01-",
        "00-" + TRACE + "-" + SPAN + "-01x",
        "cc-" + TRACE + "-" + SPAN + "-01x",
        // leading space, short fields, wrong separators
        " 00-" + TRACE + "-" + SPAN + "-01",
        "00-" + TRACE + "-" + SPAN + "-1",
        "00_" + TRACE + "_" + SPAN + "_01",
        "00-" + TRACE + "0-" + SPAN + "-0",
        // NUL inside and at the end
        "00-4bf92f3577b34da6a3ce929d0e0e473\u0000-" + SPAN + "-01",
        "00-" + TRACE + "-" + SPAN + "-01\u0000",
        // non-ASCII digits that some parsers accept
        "00-" + TRACE + "-" + SPAN + "-٠١",
      })
  void refusesHostileValues(String value) {
    assertThat(TraceParent.parse(value)).isEmpty();
  }

  @Test
  void refusesNullAndHugeValuesWithoutReadingThem() {
    assertThat(TraceParent.parse(null)).isEmpty();
    assertThat(TraceParent.parse("cc-" + TRACE + "-" + SPAN + "-01-" + "a".repeat(1_000_000)))
        .isEmpty();
    assertThat(TraceParent.parse(VALID.repeat(10_000))).isEmpty();
  }

  @Test
  void theRecordRefusesIdsItCouldNotWrite() {
    assertThatThrownBy(() -> new TraceParent("0".repeat(32), SPAN, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("trace id");
    assertThatThrownBy(() -> new TraceParent(TRACE, SPAN.toUpperCase(), true))
        .hasMessageContaining("span id");
    assertThatThrownBy(() -> new TraceParent(null, SPAN, true)).hasMessageContaining("trace id");
  }

  @Test
  void aSpanContinuesAValidParentAndStartsANewTraceForAnInvalidOne() {
    InMemorySpanExporter spans = InMemorySpanExporter.create();
    try (SdkTracerProvider provider =
        SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build()) {
      var tracer = provider.get("test");
      Span child = tracer.spanBuilder("child").setParent(Tracing.parent(VALID)).startSpan();
      child.end();
      Span fresh =
          tracer
              .spanBuilder("fresh")
              .setParent(Tracing.parent("00-" + TRACE.toUpperCase() + "-" + SPAN + "-01"))
              .startSpan();
      fresh.end();

      List<io.opentelemetry.sdk.trace.data.SpanData> done = spans.getFinishedSpanItems();
      assertThat(done.get(0).getTraceId()).isEqualTo(TRACE);
      assertThat(done.get(0).getParentSpanId()).isEqualTo(SPAN);
      assertThat(done.get(1).getTraceId()).isNotEqualTo(TRACE);
      assertThat(done.get(1).getParentSpanContext().isValid()).isFalse();
      assertThat(Tracing.traceParent(child).orElseThrow().traceId()).isEqualTo(TRACE);
    }
  }
}
