/**
 * Hot standby: a PostgreSQL advisory lock on a dedicated connection decides which relay instance
 * streams; the others wait and take over when it is released.
 */
package dev.vigil.relay.standby;
