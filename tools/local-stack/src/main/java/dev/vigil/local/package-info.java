/**
 * The local stack: one command that starts embedded PostgreSQL and Kafka, the three Vigil services,
 * demo targets and the reference webhook receiver, and prints every delivered alert.
 */
package dev.vigil.local;
