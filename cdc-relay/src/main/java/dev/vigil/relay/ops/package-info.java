/**
 * What operators see: the relay's state (streaming, standby, failing), Prometheus metrics, slot lag
 * sampling and the /health and /metrics HTTP endpoints.
 */
package dev.vigil.relay.ops;
