/**
 * A PostgreSQL 17 primary with a streaming physical standby (embedded binaries) that a test can
 * kill and promote, and a TCP forwarder that plays the address that moves to the new primary.
 */
package dev.vigil.harness.failover;
