package dev.vigil.notifier;

import dev.vigil.kit.Settings;
import dev.vigil.kit.lifecycle.ServiceLauncher;

/** Process entry point: configuration from the environment, start, close on shutdown. */
public final class NotifierMain {
  private NotifierMain() {}

  public static void main(String[] args) {
    ServiceLauncher.launch(
        "notifier", () -> NotifierService.start(new NotifierConfig(Settings.fromEnvironment())));
  }
}
