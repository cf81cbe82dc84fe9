package dev.vigil.drills;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The {@code oversized-transaction} drill at the short drill's sizes: one COPY transaction of
 * 20,000 rows relayed with a 1 s transaction timeout is published in chunks; none of its rows and
 * none of the events behind it is lost. Opt-in ({@code -Dvigil.drills.relay.exclude=none};
 * cdc-relay's LargeTransactionIT proves the chunks in the default run); results go to {@code
 * target/oversized-transaction-drill/short-drill.md}.
 */
class OversizedTransactionDrillIT {

  @Test
  void aTransactionLargerThanTheTimeoutAllowsIsPublishedInChunksAndNothingIsLost() {
    DrillResult result =
        ShortSingleDrill.runAndCheck(
            RelayDrills.OVERSIZED_TRANSACTION,
            "oversized-transaction-drill",
            "one COPY transaction");

    assertThat(result.notes()).anyMatch(n -> n.contains("published in chunks, at least once"));
    assertThat(result.passed()).isTrue();
  }
}
