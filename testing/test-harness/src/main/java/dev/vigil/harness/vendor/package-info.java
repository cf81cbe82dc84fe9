/**
 * Stand-ins for the vendors Vigil's channels send to (Slack, PagerDuty): their documented request
 * contracts and rate limits, shared by the notifier's tests and the storm benchmark.
 */
package dev.vigil.harness.vendor;
