/**
 * The stack under test: PostgreSQL and Kafka in the drill JVM, and relay, notifier and receiver as
 * separate OS processes that can be killed with SIGKILL and started again.
 */
package dev.vigil.drills.stack;
