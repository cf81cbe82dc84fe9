/**
 * The alert event contract shared by the monitor (which writes it into the outbox), the relay
 * (which routes it to Kafka) and the notifier (which reads it back). Changes here are additive
 * only; the version is in every payload.
 */
package dev.vigil.contract;
