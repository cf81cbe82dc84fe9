package dev.vigil.monitor.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.monitor.alert.ProbeResult;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** A pushed {@code error} longer than the contract's 500 characters is cut with a marker. */
class PushRequestsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static ObjectNode down(String error) {
    return JSON.createObjectNode().put("status", "DOWN").put("error", error);
  }

  @Test
  void aLongPushedErrorIsCutToTheContractLengthWithAnEllipsisInsteadOfRefused() {
    String stackTrace = "java.io.IOException: boom\n\tat x.Y.z(Y.java:1)\n".repeat(100);

    ProbeResult result = PushRequests.parse("batch", down(stackTrace), Instant.now());

    assertThat(result.error())
        .hasSize(AlertEvent.MAX_ERROR_LENGTH)
        .endsWith("…")
        .startsWith(stackTrace.substring(0, AlertEvent.MAX_ERROR_LENGTH - 1));
  }

  @Test
  void anErrorOfExactlyTheContractLengthIsKeptWhole() {
    String error = "e".repeat(AlertEvent.MAX_ERROR_LENGTH);

    assertThat(PushRequests.parse("batch", down(error), Instant.now()).error()).isEqualTo(error);
  }

  @Test
  void aCutNeverSplitsASurrogatePair() {
    // An emoji (two chars) straddling the cut: the cut moves before it, never leaving half of it.
    String error = "x".repeat(AlertEvent.MAX_ERROR_LENGTH - 2) + "\uD83D\uDE00" + "y".repeat(50);

    String cut = PushRequests.parse("batch", down(error), Instant.now()).error();

    assertThat(cut).endsWith("x…").hasSizeLessThanOrEqualTo(AlertEvent.MAX_ERROR_LENGTH);
  }

  @Test
  void aLongErrorWithAControlCharacterIsStillRefusedNamingTheField() {
    String error = "a".repeat(2_000) + "\u0000";

    assertThatThrownBy(() -> PushRequests.parse("batch", down(error), Instant.now()))
        .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.field()).isEqualTo("error"));
  }
}
