/**
 * The monitor service: configuration, wiring and lifecycle ({@link
 * dev.vigil.monitor.MonitorService}) and the database schema ({@link
 * dev.vigil.monitor.MonitorSchema}).
 */
package dev.vigil.monitor;
