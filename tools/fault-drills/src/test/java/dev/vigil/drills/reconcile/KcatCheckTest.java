package dev.vigil.drills.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class KcatCheckTest {
  private static final UUID ID = UUID.fromString("6491f6b9-0015-4043-b276-5b844055eb41");

  @Test
  void theEventIdIsTakenFromKcatsHeaderList() {
    assertThat(KcatCheck.eventId("id=" + ID + ",kind=FAILED,incident_id=x,schema_version=1"))
        .isEqualTo(ID);
    assertThat(KcatCheck.eventId("kind=RECOVERED,id=" + ID)).isEqualTo(ID);
  }

  @Test
  void aRecordWithoutAUsableIdCountsForNoEvent() {
    assertThat(KcatCheck.eventId("")).isNull();
    assertThat(KcatCheck.eventId("kind=FAILED")).isNull();
    assertThat(KcatCheck.eventId("id=not-a-uuid,kind=FAILED")).isNull();
    assertThat(KcatCheck.eventId("id=\u0000\uFFFD,kind=FAILED")).isNull();
    assertThat(KcatCheck.eventId("incident_id=" + ID)).as("another header's value").isNull();
  }
}
