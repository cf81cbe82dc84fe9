/**
 * The false-page drill: targets probed from three locations, each through a TCP path of its own
 * that the drill cuts, blips and whose monitor it kills, with real outages scripted in; pages
 * counted at the receiver.
 */
package dev.vigil.drills.falsepage;
