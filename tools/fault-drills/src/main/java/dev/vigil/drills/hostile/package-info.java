/**
 * Hostile records for the {@code hostile-records} drill: what a careless or malicious producer can
 * put on the alert topic, and the check that the notifier parked each one or saw it as a duplicate.
 */
package dev.vigil.drills.hostile;
