/**
 * The notifier's HTTP surface: /health, /metrics (Prometheus) and the token-protected operator API
 * to list, replay and skip deliveries.
 */
package dev.vigil.notifier.api;
