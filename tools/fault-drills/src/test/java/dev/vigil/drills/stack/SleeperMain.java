package dev.vigil.drills.stack;

/** A process that runs until it is killed, for {@link ServiceProcessTest}. */
public final class SleeperMain {
  private SleeperMain() {}

  public static void main(String[] args) throws InterruptedException {
    System.out.println("sleeper up, marker=" + System.getenv("VIGIL_DRILL_MARKER"));
    Thread.sleep(120_000);
  }
}
