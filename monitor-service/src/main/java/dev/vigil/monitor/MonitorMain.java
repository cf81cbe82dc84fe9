package dev.vigil.monitor;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;

/** Starts the monitor from environment variables; stops it on SIGTERM / Ctrl-C. */
public final class MonitorMain {
  private MonitorMain() {}

  public static void main(String[] args) {
    MonitorService service;
    try {
      service = MonitorService.start(new MonitorConfig(Settings.fromEnvironment()));
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(service::close, "monitor-shutdown"));
  }
}
