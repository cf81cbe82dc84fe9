/**
 * The dependencies drill of issue 30: a gateway and its children, two monitors and a kill, a
 * maintenance window beside an ending silence, and a storm behind ten parents, paged at a receiver.
 */
package dev.vigil.drills.dependencies;
