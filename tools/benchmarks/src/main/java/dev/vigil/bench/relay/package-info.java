/**
 * Vigil's CDC relay under load: live throughput and latency at fixed rates and at saturation, and
 * the catch-up of a backlog after a restart.
 */
package dev.vigil.bench.relay;
