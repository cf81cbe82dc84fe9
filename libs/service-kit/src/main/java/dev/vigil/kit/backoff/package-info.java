/**
 * Waiting between attempts of a retry loop: exponential growth from a first pause up to a cap, back
 * to the first pause after a success.
 */
package dev.vigil.kit.backoff;
