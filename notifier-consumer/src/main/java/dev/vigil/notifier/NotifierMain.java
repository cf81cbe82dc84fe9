package dev.vigil.notifier;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;

/** Process entry point: configuration from the environment, start, close on shutdown. */
public final class NotifierMain {
  private NotifierMain() {}

  public static void main(String[] args) {
    NotifierService service;
    try {
      service = NotifierService.start(new NotifierConfig(Settings.fromEnvironment()));
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(service::close, "notifier-shutdown"));
  }
}
