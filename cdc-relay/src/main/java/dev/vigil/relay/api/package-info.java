/**
 * The relay's HTTP surface: {@code /health} (one check, {@code stream}: streaming, standby or
 * failing with the reason), {@code /health/live} and {@code /metrics}.
 */
package dev.vigil.relay.api;
