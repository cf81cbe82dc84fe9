package dev.vigil.local;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.contract.AlertEvent;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AlertLineTest {
  @Test
  void controlCharactersFromTheEventNeverReachTheTerminal() {
    AlertEvent event =
        AlertEvent.failed(
            UUID.randomUUID(),
            UUID.randomUUID(),
            "a-very-long-service",
            Instant.parse("2026-11-30T23:00:00Z"),
            3,
            "a\u0000b\u001b[31mred\nnext");

    String line = LocalStack.alertLine(event);

    assertThat(line).doesNotContainPattern("\\p{Cc}");
    assertThat(line).contains("error=a\\u0000b\\u001b[31mred\\u000anext");
    assertThat(line).contains("a-very-long-service FAILED");
  }
}
