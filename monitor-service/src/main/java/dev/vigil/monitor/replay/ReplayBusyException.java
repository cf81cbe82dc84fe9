package dev.vigil.monitor.replay;

/** Another replay holds the replay lock; replays run one at a time, across every monitor. */
public final class ReplayBusyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  ReplayBusyException() {
    super("another replay is running; try again when it has finished");
  }
}
