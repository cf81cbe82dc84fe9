/**
 * One meter registry per service: names {@code vigil.<service>.…} (exposed as {@code
 * vigil_<service>_…}), the JVM, connection pool and Kafka client binders wired the same way.
 */
package dev.vigil.kit.metrics;
