/**
 * The one strict way Vigil reads JSON from outside (HTTP bodies, Kafka record values): UTF-8 only,
 * one value, no duplicate keys, no lone surrogates; every refusal names the field.
 */
package dev.vigil.kit.json;
