/**
 * The cdc-relay service: configuration, start-up wiring and the supervisor that moves an instance
 * between standby, streaming and failing.
 */
package dev.vigil.relay;
