package dev.vigil.kit.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class HealthTest {
  @Test
  void isUpWith200OnlyWhenNoCheckIsDown() throws Exception {
    Health up =
        Health.builder()
            .check("database", true)
            .check("relay", new Health.Check("STANDBY", "another instance streams", Map.of()))
            .build();
    Health down =
        Health.builder()
            .check("database", true)
            .check("intake", Health.Check.of(false, "stuck"))
            .build();

    assertThat(up.status()).isEqualTo("UP");
    assertThat(up.httpStatus()).isEqualTo(200);
    assertThat(down.status()).isEqualTo("DOWN");
    assertThat(down.httpStatus()).isEqualTo(503);
  }

  @Test
  void serialisesAsStatusAndNamedChecksInOrder() throws Exception {
    Health health =
        Health.builder()
            .check("intake", Health.Check.of(false, "a \"quoted\"\nreason"))
            .check("database", true)
            .build();

    String json = HttpJson.mapper().writeValueAsString(health);

    assertThat(json)
        .isEqualTo(
            "{\"status\":\"DOWN\",\"checks\":{\"intake\":{\"status\":\"DOWN\",\"detail\":\"a"
                + " \\\"quoted\\\"\\nreason\"},\"database\":{\"status\":\"UP\"}}}");
  }
}
