/**
 * The shared log format: {@code vigil-logback.xml} (included by every module's logback.xml) and the
 * {@code VIGIL_LOG_FORMAT} switch between text lines and JSON lines.
 */
package dev.vigil.kit.logging;
