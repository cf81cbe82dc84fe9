package dev.vigil.drills.stack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RelayHealthTest {
  private static String body(String status, String state) {
    return "200 {\"status\":\"UP\",\"checks\":{\"stream\":{\"status\":\""
        + status
        + "\",\"detail\":\"another instance holds the lock of slot s\",\"data\":{\"state\":\""
        + state
        + "\",\"instance\":\"r1\",\"active\":false}}}}";
  }

  @Test
  void onlyAStreamingRelayCountsAsStreaming() {
    assertThat(Stack.isStreaming(body("UP", "streaming"))).isTrue();
    assertThat(Stack.isStreaming(body("STANDBY", "standby"))).isFalse();
    assertThat(Stack.isStreaming(body("DOWN", "failing"))).isFalse();
  }
}
