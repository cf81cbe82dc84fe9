/**
 * A misbehaving HTTP proxy between the notifier and the reference receiver: bursts of 503, slow
 * responses, 429 with Retry-After and connection resets.
 */
package dev.vigil.drills.chaos;
