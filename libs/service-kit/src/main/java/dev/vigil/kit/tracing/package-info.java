/**
 * Trace context: the W3C {@code traceparent} read from outside (checked, never trusted) and the
 * OpenTelemetry tracer every service builds from the same settings, exporting over OTLP only when
 * configured.
 */
package dev.vigil.kit.tracing;
