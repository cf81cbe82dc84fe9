/**
 * The read-only status page, its per-service pages and SVG badges (server-rendered HTML and SVG
 * from HTML-escaping Mustache templates), and the hourly rollup of check history they read uptime
 * from.
 */
package dev.vigil.monitor.status;
