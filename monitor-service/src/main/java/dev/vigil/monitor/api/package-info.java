/**
 * The JSON HTTP API (services, history, incidents, pushed results, target management), health and
 * Prometheus metrics, served by Javalin.
 */
package dev.vigil.monitor.api;
