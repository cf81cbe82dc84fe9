/**
 * What operators see: the relay's state (streaming, standby, failing), its Prometheus meters and
 * slot lag sampling; the HTTP endpoints that show them are in {@code dev.vigil.relay.api}.
 */
package dev.vigil.relay.ops;
