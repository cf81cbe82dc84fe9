/**
 * Notifier instances advertise their channels and routes in the database (heartbeat rows), so each
 * instance's intake applies its peers' routes and a channel that no running instance has is shown.
 */
package dev.vigil.notifier.instances;
