/**
 * The relay's configuration, one typed record read from the environment; every other package of the
 * relay reads it, and it depends on none of them.
 */
package dev.vigil.relay.config;
