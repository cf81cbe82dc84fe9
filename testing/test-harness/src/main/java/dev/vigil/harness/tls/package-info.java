/**
 * TLS material for tests: a throw-away CA with server and client certificates, generated with the
 * JDK's keytool, in the file formats PostgreSQL, pgjdbc and Kafka read.
 */
package dev.vigil.harness.tls;
