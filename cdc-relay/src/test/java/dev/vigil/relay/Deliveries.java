package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Checks what a topic holds against what was committed: nothing missing, order per service. */
final class Deliveries {
  private Deliveries() {}

  /** Distinct event ids among records whose key starts with {@code prefix}. */
  static Set<String> ids(List<TopicReader.Received> records, String prefix) {
    Set<String> ids = new HashSet<>();
    for (TopicReader.Received r : records) {
      if (r.keyText() != null && r.keyText().startsWith(prefix)) {
        ids.add(r.headers().get(AlertTopic.HEADER_EVENT_ID));
      }
    }
    return ids;
  }

  /**
   * Asserts every committed event arrived under its service key and that, per service, the first
   * occurrences are in commit order; returns the number of duplicate records.
   */
  static int verify(
      List<TopicReader.Received> records, String prefix, Map<String, String> serviceById) {
    List<TopicReader.Received> mine = new ArrayList<>();
    for (TopicReader.Received r : records) {
      if (r.keyText() != null && r.keyText().startsWith(prefix)) {
        mine.add(r);
      }
    }
    mine.sort(
        Comparator.comparingInt(TopicReader.Received::partition)
            .thenComparingLong(TopicReader.Received::offset));
    Map<String, List<Integer>> firstSeen = new LinkedHashMap<>();
    Set<String> seen = new HashSet<>();
    int duplicates = 0;
    for (TopicReader.Received r : mine) {
      String id = r.headers().get(AlertTopic.HEADER_EVENT_ID);
      if (serviceById.containsKey(id)) {
        assertThat(r.keyText()).as("key of %s", id).isEqualTo(serviceById.get(id));
      }
      if (!seen.add(id)) {
        duplicates++;
        continue;
      }
      firstSeen
          .computeIfAbsent(r.keyText(), k -> new ArrayList<>())
          .add(AlertEventJson.read(r.value()).consecutiveFailures());
    }
    assertThat(seen).as("every committed event arrived").containsAll(serviceById.keySet());
    firstSeen.forEach(
        (service, sequence) -> {
          assertThat(sequence).as("commit order of %s", service).isSorted();
          assertThat(sequence.getLast()).as("no gap in %s", service).isEqualTo(sequence.size());
        });
    return duplicates;
  }
}
