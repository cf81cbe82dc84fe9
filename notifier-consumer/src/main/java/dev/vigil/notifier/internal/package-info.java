/**
 * Plumbing shared by the notifier and the reference receiver: connection pools, Flyway migrations
 * and short JDBC transactions. Not an API; other modules must not depend on it.
 */
package dev.vigil.notifier.internal;
