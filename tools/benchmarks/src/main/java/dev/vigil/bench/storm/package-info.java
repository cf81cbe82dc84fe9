/**
 * The incident storm: thousands of targets that fail in the same second and recover in the same
 * second, followed through the real monitor, relay and notifier to a webhook receiver.
 */
package dev.vigil.bench.storm;
