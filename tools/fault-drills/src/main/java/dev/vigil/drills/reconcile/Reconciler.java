package dev.vigil.drills.reconcile;

import dev.vigil.drills.workload.CommittedEvent;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * Compares what was committed with what was seen downstream. Pure: it only counts, so a unit test
 * can show that every pass condition fails when events are lost, duplicated or reordered.
 */
public final class Reconciler {
  private Reconciler() {}

  /**
   * @param committed the drill's events as the workload committed them
   * @param outboxIds every id in the outbox table
   * @param kafka every record on the topic (any drill)
   * @param receipts receipt status per event id (any drill)
   * @param receiver every row in the receiver's store (any drill)
   */
  public static DrillCounts reconcile(
      Collection<CommittedEvent> committed,
      Set<UUID> outboxIds,
      List<Observed> kafka,
      Map<UUID, String> receipts,
      List<Observed> receiver) {
    return reconcile(committed, outboxIds, kafka, kafka, receipts, receiver, false);
  }

  /**
   * As above, with the topic read at both isolation levels.
   *
   * @param kafka every record on the topic, read read_committed
   * @param kafkaUncommitted every record on the topic, read read_uncommitted
   * @param exactlyOnce whether read_committed duplicates fail the drill
   */
  public static DrillCounts reconcile(
      Collection<CommittedEvent> committed,
      Set<UUID> outboxIds,
      List<Observed> kafka,
      List<Observed> kafkaUncommitted,
      Map<UUID, String> receipts,
      List<Observed> receiver,
      boolean exactlyOnce) {
    Map<UUID, Long> rank = new HashMap<>();
    Set<String> services = new HashSet<>();
    long notInOutbox = 0;
    for (CommittedEvent event : committed) {
      rank.put(event.eventId(), event.serviceSeq());
      services.add(event.service());
      if (!outboxIds.contains(event.eventId())) {
        notInOutbox++;
      }
    }
    Seen onKafka = seen(kafka, rank, true);
    Seen uncommitted = seen(kafkaUncommitted, rank, true);
    Seen atReceiver = seen(receiver, rank, false);
    long receiptCount = 0;
    long delivered = 0;
    long dead = 0;
    for (UUID id : rank.keySet()) {
      String status = receipts.get(id);
      if (status == null) {
        continue;
      }
      receiptCount++;
      if (status.equals("DELIVERED")) {
        delivered++;
      } else if (status.equals("DEAD")) {
        dead++;
      }
    }
    return new DrillCounts(
        rank.size() - notInOutbox,
        services.size(),
        notInOutbox,
        onKafka.records,
        onKafka.records - onKafka.distinct,
        rank.size() - onKafka.distinct,
        onKafka.orderViolations,
        receiptCount,
        delivered,
        dead,
        atReceiver.distinct,
        atReceiver.records - atReceiver.distinct,
        rank.size() - atReceiver.distinct,
        atReceiver.orderViolations,
        uncommitted.records - uncommitted.distinct,
        exactlyOnce);
  }

  private record Seen(long records, long distinct, long orderViolations) {}

  /**
   * Counts the drill's events in {@code observed}. Order: within a service, walking in the order
   * things were written (partition, then position), an event whose commit rank is below the highest
   * rank already seen arrived too late. Repeats of an already seen id are duplicates, not order
   * violations (an at-least-once tail). A service spread over several partitions has no defined
   * order and counts as one violation when {@code singlePartition} is required.
   */
  private static Seen seen(List<Observed> observed, Map<UUID, Long> rank, boolean singlePartition) {
    List<Observed> mine =
        observed.stream()
            .filter(o -> rank.containsKey(o.eventId()))
            .sorted(
                Comparator.comparingInt(Observed::partition).thenComparingLong(Observed::position))
            .toList();
    Set<UUID> distinct = new HashSet<>();
    Map<String, Long> highest = new HashMap<>();
    Map<String, Integer> partitionOf = new HashMap<>();
    Set<String> split = new HashSet<>();
    long violations = 0;
    for (Observed o : mine) {
      Integer first = partitionOf.putIfAbsent(o.service(), o.partition());
      if (first != null && first != o.partition()) {
        split.add(o.service());
      }
      if (!distinct.add(o.eventId())) {
        continue;
      }
      long r = rank.get(o.eventId());
      Long max = highest.get(o.service());
      if (max != null && r < max) {
        violations++;
      } else {
        highest.put(o.service(), r);
      }
    }
    if (singlePartition) {
      violations += split.size();
    }
    return new Seen(mine.size(), distinct.size(), violations);
  }
}
