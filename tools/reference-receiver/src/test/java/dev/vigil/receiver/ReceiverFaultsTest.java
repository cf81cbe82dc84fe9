package dev.vigil.receiver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Fault rules from text (VIGIL_RECEIVER_FAULTS, POST /_faults): a broken rule adds nothing. */
class ReceiverFaultsTest {

  @Test
  void aValidRuleAppliesToItsServiceForItsTimes() {
    ReceiverFaults faults = ReceiverFaults.parse("status=503 times=1 service=web");

    assertThat(faults.next("api")).isEmpty();
    assertThat(faults.next("web")).get().extracting(ReceiverFaults.Fault::status).isEqualTo(503);
    assertThat(faults.next("web")).isEmpty();
  }

  @Test
  void aStatusOutsideHttpsRangeTimesBelowOneOrAServiceThatIsNoNameAreRefused() {
    for (String rule :
        new String[] {
          "status=999 times=1", "status=42", "drop times=0", "status=503 service=a\u0000b"
        }) {
      assertThatThrownBy(() -> ReceiverFaults.parse(rule))
          .as(rule)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aBrokenRuleAddsNoneOfTheRulesBeforeIt() {
    ReceiverFaults faults = new ReceiverFaults();

    assertThatThrownBy(() -> faults.addAll("status=503 times=1; explode=yes"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("explode");
    assertThat(faults.next("web")).isEmpty();
  }
}
