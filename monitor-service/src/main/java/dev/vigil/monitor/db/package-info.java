/**
 * Small JDBC helpers shared by the monitor's features: transactions that can join a caller's
 * connection, and the unchecked wrapper for SQL failures.
 */
package dev.vigil.monitor.db;
