/**
 * What every Vigil HTTP server does the same way: JSON through Javalin's Jackson mapper, bearer
 * tokens compared in constant time, one {@code /health} body with named checks, {@code /metrics}.
 */
package dev.vigil.kit.http;
