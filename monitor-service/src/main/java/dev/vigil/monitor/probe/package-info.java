/**
 * Probing HTTP targets and scheduling the probes across monitor instances with database leases, so
 * each due probe runs once, on time, and a crashed instance's targets are taken over.
 */
package dev.vigil.monitor.probe;
