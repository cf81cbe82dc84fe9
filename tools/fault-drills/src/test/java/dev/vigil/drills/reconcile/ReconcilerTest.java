package dev.vigil.drills.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.contract.AlertKind;
import dev.vigil.drills.workload.CommittedEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ReconcilerTest {
  private final List<CommittedEvent> committed = new ArrayList<>();
  private final Set<UUID> outbox = new HashSet<>();
  private final Map<UUID, String> receipts = new HashMap<>();

  ReconcilerTest() {
    for (String service : List.of("a", "b")) {
      for (int seq = 0; seq < 4; seq++) {
        UUID id = UUID.randomUUID();
        committed.add(
            new CommittedEvent(
                id,
                service,
                seq % 2 == 0 ? AlertKind.FAILED : AlertKind.RECOVERED,
                UUID.randomUUID(),
                seq,
                "d",
                seq));
        outbox.add(id);
        receipts.put(id, "DELIVERED");
      }
    }
  }

  private List<Observed> inOrder(int partitionOfB) {
    List<Observed> observed = new ArrayList<>();
    long position = 0;
    for (CommittedEvent event : committed) {
      observed.add(
          new Observed(
              event.eventId(),
              event.service(),
              event.service().equals("b") ? partitionOfB : 0,
              position++));
    }
    return observed;
  }

  @Test
  void everythingOnceAndInOrderPasses() {
    DrillCounts counts = Reconciler.reconcile(committed, outbox, inOrder(1), receipts, inOrder(0));

    assertThat(counts.passed()).isTrue();
    assertThat(counts.eventsCommitted()).isEqualTo(8);
    assertThat(counts.services()).isEqualTo(2);
    assertThat(counts.kafkaRecords()).isEqualTo(8);
    assertThat(counts.delivered()).isEqualTo(8);
    assertThat(counts.stored()).isEqualTo(8);
  }

  @Test
  void kafkaDuplicatesOfTheTailAreCountedButPass() {
    List<Observed> kafka = inOrder(1);
    kafka.add(new Observed(committed.get(2).eventId(), "a", 0, 100));
    kafka.add(new Observed(committed.get(3).eventId(), "a", 0, 101));

    DrillCounts counts = Reconciler.reconcile(committed, outbox, kafka, receipts, inOrder(0));

    assertThat(counts.kafkaDuplicates()).isEqualTo(2);
    assertThat(counts.kafkaOrderViolations()).isZero();
    assertThat(counts.passed()).isTrue();
  }

  @Test
  void exactlyOnceCountsBothIsolationLevelsAndFailsOnlyOnAReadCommittedDuplicate() {
    List<Observed> uncommitted = inOrder(1);
    uncommitted.add(new Observed(committed.get(2).eventId(), "a", 0, 100)); // aborted copy

    DrillCounts clean =
        Reconciler.reconcile(
            committed, outbox, inOrder(1), uncommitted, receipts, inOrder(0), true);
    assertThat(clean.kafkaDuplicates()).isZero();
    assertThat(clean.kafkaDuplicatesReadUncommitted()).isEqualTo(1);
    assertThat(clean.passed()).isTrue();

    DrillCounts duplicated =
        Reconciler.reconcile(
            committed, outbox, uncommitted, uncommitted, receipts, inOrder(0), true);
    assertThat(duplicated.kafkaDuplicates()).isEqualTo(1);
    assertThat(duplicated.passed()).isFalse();
  }

  @Test
  void eventMissingAtTheReceiverIsLostAndFails() {
    List<Observed> receiver = inOrder(0);
    receiver.remove(5);

    DrillCounts counts = Reconciler.reconcile(committed, outbox, inOrder(1), receipts, receiver);

    assertThat(counts.lost()).isEqualTo(1);
    assertThat(counts.passed()).isFalse();
  }

  @Test
  void eventStoredTwiceFails() {
    List<Observed> receiver = inOrder(0);
    receiver.add(new Observed(committed.get(7).eventId(), "b", 0, 99));

    DrillCounts counts = Reconciler.reconcile(committed, outbox, inOrder(1), receipts, receiver);

    assertThat(counts.storedTwice()).isEqualTo(1);
    assertThat(counts.passed()).isFalse();
  }

  @Test
  void laterEventStoredBeforeAnEarlierOneOfTheSameServiceIsAnOrderViolation() {
    List<Observed> receiver = inOrder(0);
    Observed second = receiver.get(1);
    Observed third = receiver.get(2);
    receiver.set(1, new Observed(third.eventId(), third.service(), 0, second.position()));
    receiver.set(2, new Observed(second.eventId(), second.service(), 0, third.position()));

    DrillCounts counts = Reconciler.reconcile(committed, outbox, inOrder(1), receipts, receiver);

    assertThat(counts.receiverOrderViolations()).isEqualTo(1);
    assertThat(counts.passed()).isFalse();
  }

  @Test
  void serviceSpreadOverTwoPartitionsIsAnOrderViolationOnKafka() {
    List<Observed> kafka = inOrder(1);
    Observed last = kafka.get(7);
    kafka.set(7, new Observed(last.eventId(), last.service(), 2, last.position()));

    DrillCounts counts = Reconciler.reconcile(committed, outbox, kafka, receipts, inOrder(0));

    assertThat(counts.kafkaOrderViolations()).isEqualTo(1);
    assertThat(counts.passed()).isFalse();
  }

  @Test
  void committedEventMissingFromTheOutboxFails() {
    outbox.remove(committed.get(0).eventId());

    DrillCounts counts = Reconciler.reconcile(committed, outbox, inOrder(1), receipts, inOrder(0));

    assertThat(counts.notInOutbox()).isEqualTo(1);
    assertThat(counts.passed()).isFalse();
  }
}
