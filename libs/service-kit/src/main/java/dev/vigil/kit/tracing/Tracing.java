package dev.vigil.kit.tracing;

import dev.vigil.kit.ServiceConfig;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's tracer. Built from {@link TracingSettings} ({@link #start}): the OpenTelemetry SDK
 * always (so every span has a valid context to pass on), an OTLP/HTTP exporter only when {@code
 * VIGIL_TRACING_OTLP_ENDPOINT} is set. Or wrapped around an {@link OpenTelemetry} its caller owns
 * ({@link #of}), e.g. a test's SDK with an in-memory exporter.
 *
 * <p>No global state: the instance is passed to the parts that start spans.
 */
public final class Tracing implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);
  private static final String SCOPE = "dev.vigil";

  private final Tracer tracer;
  private final SdkTracerProvider owned;

  private Tracing(OpenTelemetry openTelemetry, SdkTracerProvider owned) {
    this.tracer = openTelemetry.getTracer(SCOPE);
    this.owned = owned;
  }

  /**
   * The tracer of {@code serviceName}, exporting to the configured OTLP endpoint if any. The
   * service declares {@link TracingSettings} ({@code .with(TracingSettings::addTo)}).
   */
  public static Tracing start(String serviceName, ServiceConfig config) {
    var provider =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(
                        Resource.create(
                            io.opentelemetry.api.common.Attributes.of(
                                AttributeKey.stringKey("service.name"),
                                serviceName,
                                AttributeKey.stringKey("service.instance.id"),
                                config.instanceId()))));
    String endpoint = config.get(TracingSettings.OTLP_ENDPOINT);
    if (endpoint != null && !endpoint.isEmpty()) {
      provider.addSpanProcessor(
          BatchSpanProcessor.builder(
                  OtlpHttpSpanExporter.builder()
                      .setEndpoint(endpoint)
                      .setTimeout(
                          Duration.ofSeconds(config.get(TracingSettings.OTLP_TIMEOUT_SECONDS)))
                      .build())
              .build());
      LOG.info("tracing exports spans over OTLP service={} endpoint={}", serviceName, endpoint);
    } else {
      // Without any processor the SDK only propagates its parent's context (no span id of its own),
      // so a delivery would send the probe's traceparent instead of a child's.
      provider.addSpanProcessor(new ContextOnly());
    }
    SdkTracerProvider built = provider.build();
    return new Tracing(OpenTelemetrySdk.builder().setTracerProvider(built).build(), built);
  }

  /** A tracer of {@code openTelemetry}, which its caller keeps and closes. */
  public static Tracing of(OpenTelemetry openTelemetry) {
    return new Tracing(openTelemetry, null);
  }

  /** A tracer that records nothing: for parts started without tracing (tests, tools). */
  public static Tracing none() {
    return of(OpenTelemetry.noop());
  }

  /** The tracer parts start their spans with. */
  public Tracer tracer() {
    return tracer;
  }

  /**
   * The context a span continues: the remote parent named by {@code traceparent} when it is valid,
   * else none (the span starts a new trace). Never throws for bad input.
   */
  public static Context parent(String traceparent) {
    return TraceParent.parse(traceparent)
        .map(p -> Context.root().with(Span.wrap(p.asRemoteParent())))
        .orElse(Context.root());
  }

  /** The traceparent of {@code span}, or empty for a span without a valid context. */
  public static Optional<TraceParent> traceParent(Span span) {
    return TraceParent.of(span.getSpanContext());
  }

  /** Exports what is left (when this instance built the SDK) and stops. */
  @Override
  public void close() {
    if (owned != null) {
      owned.shutdown().join(10, TimeUnit.SECONDS);
    }
  }

  /** Keeps spans real (ids of their own) when nothing exports them; does nothing with them. */
  private static final class ContextOnly implements SpanProcessor {
    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {}

    @Override
    public boolean isStartRequired() {
      return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {}

    @Override
    public boolean isEndRequired() {
      return false;
    }
  }
}
