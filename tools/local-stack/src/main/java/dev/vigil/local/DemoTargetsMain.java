package dev.vigil.local;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Setting;
import dev.vigil.kit.Settings;
import java.util.concurrent.CountDownLatch;

/** Runs only the demo targets (the compose stack's {@code demo-targets} container). */
public final class DemoTargetsMain {
  static final Setting<Integer> PORT =
      Setting.integer("VIGIL_HTTP_PORT", 8090)
          .range("0", "65535")
          .doc("Port of the demo target endpoints.");

  private DemoTargetsMain() {}

  public static void main(String[] args) throws InterruptedException {
    Settings settings = Settings.fromEnvironment();
    Integer port = settings.get(PORT);
    try {
      settings.validate();
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      System.exit(2);
    }
    DemoTargets targets = DemoTargets.startOnAllInterfaces(port);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  targets.close();
                  stopped.countDown();
                },
                "demo-targets-shutdown"));
    System.out.println(
        "demo targets serving /healthy /flapping /maintenance on port " + targets.port());
    stopped.await();
  }
}
