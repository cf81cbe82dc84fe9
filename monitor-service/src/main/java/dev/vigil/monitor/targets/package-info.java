/**
 * Targets: what to probe or accept pushed results for, declared in a YAML file or through the API,
 * validated with messages that name the source, the target and the field, and stored in the
 * database.
 */
package dev.vigil.monitor.targets;
