package dev.vigil.monitor;

import dev.vigil.kit.Settings;
import dev.vigil.kit.lifecycle.ServiceLauncher;

/** Starts the monitor from environment variables; stops it on SIGTERM / Ctrl-C. */
public final class MonitorMain {
  private MonitorMain() {}

  public static void main(String[] args) {
    ServiceLauncher.launch(
        "monitor", () -> MonitorService.start(new MonitorConfig(Settings.fromEnvironment())));
  }
}
