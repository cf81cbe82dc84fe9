package dev.vigil.receiver;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;

/** Runs the reference receiver as its own process; prints one line per stored notification. */
public final class ReceiverMain {
  private ReceiverMain() {}

  public static void main(String[] args) {
    ReferenceReceiver receiver;
    try {
      receiver = ReferenceReceiver.start(new ReceiverConfig(Settings.fromEnvironment()));
    } catch (ConfigException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    receiver.onNotification(
        n ->
            System.out.println(
                "ALERT "
                    + n.event().kind()
                    + " service="
                    + n.event().service()
                    + " event_id="
                    + n.webhookId()
                    + " incident_id="
                    + n.event().incidentId()));
    Runtime.getRuntime().addShutdownHook(new Thread(receiver::close, "receiver-shutdown"));
  }
}
