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

  @Test
  void aNumberThatIsNoneNamesItsWordAndShowsTheValueWithoutControlCharacters() {
    assertThatThrownBy(() -> ReceiverFaults.parse("status=503\u0000 times=1"))
        .hasMessage("fault rule status must be a whole number, was '503\\u0000'");
    assertThatThrownBy(() -> ReceiverFaults.parse("drop times"))
        .hasMessage("fault rule times must be a whole number, was nothing");
    assertThatThrownBy(() -> ReceiverFaults.parse("retry-after=99999999999"))
        .hasMessage("fault rule retry-after must be a whole number, was '99999999999'");
    assertThatThrownBy(() -> ReceiverFaults.parse("ex\u001bplode=" + "x".repeat(100)))
        .hasMessage("unknown fault word 'ex\\u001bplode'");
    assertThatThrownBy(() -> ReceiverFaults.parse("service=" + "y".repeat(60)))
        .hasMessage("fault rule 'service=" + "y".repeat(32) + "…' has no kind");
  }
}
