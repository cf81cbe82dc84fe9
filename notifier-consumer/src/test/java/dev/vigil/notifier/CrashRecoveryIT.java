package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A notifier process is killed (SIGKILL) while its claim is in flight. */
@ExtendWith(VigilInfraExtension.class)
class CrashRecoveryIT {

  @Test
  void killedWorkersClaimIsTakenOverAfterTheLeaseAndStoredOnce(TestDatabase db, TestKafka kafka)
      throws Exception {
    Map<String, String> settings =
        Map.of("VIGIL_NOTIFIER_LEASE", "5s", "VIGIL_WEBHOOK_READ_TIMEOUT", "3s");
    try (TestStack stack = TestStack.withoutNotifier(db, kafka, settings)) {
      // every request of this service takes 1 s, so the kill lands mid-request
      stack.receiver.faults().delay(Duration.ofSeconds(1), Integer.MAX_VALUE, "gateway");
      AlertEvent down = TestStack.failed("gateway");
      AlertEvent up = TestStack.recovered(down);
      stack.produce(down);
      stack.produce(up);

      Process child =
          startNotifierProcess(
              stack.notifierSettings(), Path.of("target", "crash-child-" + stack.group + ".log"));
      try {
        await()
            .atMost(Duration.ofSeconds(60))
            .ignoreExceptions() // until the child has created its tables
            .until(
                () ->
                    "true"
                        .equals(
                            stack.scalar(
                                "select (claim_token is not null)::text from notifier_receipt"
                                    + " where event_id = '"
                                    + down.eventId()
                                    + "'")));
      } finally {
        child.destroyForcibly().waitFor();
      }
      String deadToken =
          stack.scalar(
              "select claim_token from notifier_receipt where event_id = '" + down.eventId() + "'");

      stack.startNotifier();
      stack.awaitStatus(up.eventId(), "DELIVERED");

      assertThat(
              stack.scalar(
                  "select attempts from notifier_receipt where event_id = '"
                      + down.eventId()
                      + "'"))
          .as("the dead worker's claim counted, the takeover is the second attempt")
          .isEqualTo("2");
      assertThat(deadToken).isNotNull();
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .containsExactly(down.eventId(), up.eventId());
      assertThat(stack.count("select count(*) from received_webhook")).isEqualTo(2);
    }
  }

  private static Process startNotifierProcess(Map<String, String> settings, Path log)
      throws Exception {
    String java = ProcessHandle.current().info().command().orElseThrow();
    ProcessBuilder builder =
        new ProcessBuilder(
            List.of(
                java,
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                NotifierMain.class.getName()));
    builder.environment().putAll(settings);
    builder.redirectErrorStream(true);
    builder.redirectOutput(log.toFile());
    return builder.start();
  }
}
