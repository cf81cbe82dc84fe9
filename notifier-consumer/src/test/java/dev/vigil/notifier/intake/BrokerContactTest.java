package dev.vigil.notifier.intake;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BrokerContactTest {

  /**
   * Each step: seconds since start and the open connections seen then (silence counts from the last
   * step that saw one); the expected answer after the last step, with a bound of 30 s.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          never connected, within the bound   | 0:0 10:0 30:0       | in touch
          never connected, past the bound     | 0:0 10:0 31:0       | no connection to any Kafka broker for 31 s
          connected, then silent within bound | 0:1 20:0 30:0       | in touch
          connected, then silent past bound   | 0:1 20:0 31:0       | no connection to any Kafka broker for 31 s
          lost, then connected again          | 0:0 40:0 41:1       | in touch
          connected again, then lost again    | 0:0 40:0 41:2 72:0  | no connection to any Kafka broker for 31 s
          an idle member keeps its connection | 0:1 100:1 500:1     | in touch
          """)
  void contactIsLostOnlyAfterTheBoundWithoutAnyConnection(
      String name, String steps, String expected) {
    AtomicLong nanos = new AtomicLong();
    AtomicLong connections = new AtomicLong();
    BrokerContact contact = new BrokerContact(connections::get, nanos::get, Duration.ofSeconds(30));
    String answer = null;
    for (String step : steps.trim().split("\\s+")) {
      String[] parts = step.split(":");
      nanos.set(Duration.ofSeconds(Long.parseLong(parts[0])).toNanos());
      connections.set(Long.parseLong(parts[1]));
      answer = contact.lost();
    }
    assertThat(answer == null ? "in touch" : answer).isEqualTo(expected);
  }
}
