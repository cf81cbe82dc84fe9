package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A notifier process is killed (SIGKILL) while its claim is in flight. */
@ExtendWith(VigilInfraExtension.class)
class CrashRecoveryIT {

  @Test
  void killedWorkersClaimIsTakenOverAfterTheLeaseAndStoredOnce(TestDatabase db, TestKafka kafka)
      throws Exception {
    try (TestStack stack = TestStack.withoutNotifier(db, kafka, Map.of())) {
      AlertEvent down = TestStack.failed("gateway");
      AlertEvent up = TestStack.recovered(down);
      stack.produce(down);
      stack.produce(up);

      // SIGKILL from inside the child's request for FAILED, after the receiver stored it and before
      // it is answered: the child dies holding its claim and never learns the outcome.
      CompletableFuture<Process> started = new CompletableFuture<>();
      stack.receiver.onNextRequestFor("gateway", () -> kill(started.join()));
      Process child =
          startNotifierProcess(
              stack.notifierSettings(), Path.of("target", "crash-child-" + stack.group + ".log"));
      started.complete(child);
      try {
        assertThat(child.waitFor(120, TimeUnit.SECONDS))
            .as("killed inside its first request (see the child's log in target/)")
            .isTrue();
      } finally {
        child.destroyForcibly().waitFor();
      }
      String deadToken =
          stack.scalar(
              "select claim_token from notifier_receipt where event_id = '" + down.eventId() + "'");
      assertThat(deadToken).as("the dead child's claim is still held").isNotNull();

      // end the dead claim's lease now rather than waiting it out; only that claim is touched
      assertThat(
              stack.update(
                  "update notifier_receipt set available_at = now() where event_id = '"
                      + down.eventId()
                      + "' and claim_token = '"
                      + deadToken
                      + "'"))
          .isEqualTo(1);
      stack.startNotifier();
      stack.awaitStatus(up.eventId(), "DELIVERED");

      assertThat(
              stack.scalar(
                  "select attempts from notifier_receipt where event_id = '"
                      + down.eventId()
                      + "'"))
          .as("the dead worker's claim counted, the takeover is the second attempt")
          .isEqualTo("2");
      assertThat(stack.notifications)
          .extracting(n -> n.event().eventId())
          .containsExactly(down.eventId(), up.eventId());
      assertThat(stack.count("select count(*) from received_webhook")).isEqualTo(2);
    }
  }

  /** SIGKILL (no shutdown hook), returning once the process is gone. */
  private static void kill(Process process) {
    process.destroyForcibly();
    try {
      process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing the notifier", e);
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
