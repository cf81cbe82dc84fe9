/**
 * The reference webhook receiver used by tests and the demo: verifies Standard Webhooks signatures,
 * stores each webhook-id once, and can misbehave on purpose for fault drills.
 */
package dev.vigil.receiver;
