/**
 * Kafka intake: validates alert records, stores a receipt per event id (idempotently) or parks the
 * record as rejected, and commits offsets only after the batch is stored.
 */
package dev.vigil.notifier.intake;
