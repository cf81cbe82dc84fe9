/**
 * A service's PostgreSQL: the pool, its migrations and short explicit transactions, the same way in
 * every Vigil service.
 */
package dev.vigil.kit.db;
