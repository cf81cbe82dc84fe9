/**
 * Kafka client security shared by every service that talks to Kafka: the {@code VIGIL_KAFKA_*}
 * settings (SASL_SSL, mutual TLS, pass-through properties), the client properties built from them,
 * and readable explanations of authentication and TLS failures that name the setting to check.
 */
package dev.vigil.kit.kafka;
