/**
 * What every Vigil service does the same way: settings read from environment variables, typed,
 * validated and documented, so a bad value stops startup with the key and the reason.
 */
package dev.vigil.kit;
