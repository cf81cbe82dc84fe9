/**
 * Tests of the Kafka Connect deployment: a real distributed Connect worker running the shipped
 * connector JSON, held to the embedded relay's records and to the alert event JSON Schema.
 */
package dev.vigil.connect;
