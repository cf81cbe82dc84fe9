/**
 * Starting a service's parts and closing them again: in reverse order of start, every part closed
 * even when one fails, the first failure kept (Kafka's {@code KafkaProducer.close} style).
 */
package dev.vigil.kit.lifecycle;
