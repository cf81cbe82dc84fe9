/**
 * Webhook delivery from receipts: head-of-line claims with leases and random tokens, signed POSTs
 * outside any transaction, outcomes recorded only while the token holds, bounded retries.
 */
package dev.vigil.notifier.delivery;
