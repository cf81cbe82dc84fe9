package dev.vigil.monitor;

import dev.vigil.kit.Settings;
import dev.vigil.kit.lifecycle.ServiceLauncher;
import java.util.Arrays;

/**
 * Starts the monitor from environment variables; stops it on SIGTERM / Ctrl-C. {@code replay …}
 * runs the operator command instead ({@link ReplayCommand}) and exits with its code.
 */
public final class MonitorMain {
  private MonitorMain() {}

  public static void main(String[] args) {
    if (args.length > 0 && args[0].equals("replay")) {
      System.exit(
          ReplayCommand.run(Arrays.copyOfRange(args, 1, args.length), Settings.fromEnvironment()));
    }
    ServiceLauncher.launch(
        "monitor", () -> MonitorService.start(new MonitorConfig(Settings.fromEnvironment())));
  }
}
