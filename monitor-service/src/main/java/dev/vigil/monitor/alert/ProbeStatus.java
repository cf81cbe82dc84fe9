package dev.vigil.monitor.alert;

/** The verdict of one check of one service. */
public enum ProbeStatus {
  UP,
  DOWN
}
