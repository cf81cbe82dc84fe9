package dev.vigil.relay.stream;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.connect.source.SourceRecord;

/** The engine's committer for publisher tests: records what the publisher marked processed. */
final class RecordedMarks
    implements DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> {
  final List<RecordChangeEvent<SourceRecord>> processed = new ArrayList<>();

  @Override
  public void markProcessed(RecordChangeEvent<SourceRecord> record) {
    processed.add(record);
  }

  @Override
  public void markBatchFinished() {}

  @Override
  public void markProcessed(
      RecordChangeEvent<SourceRecord> record, DebeziumEngine.Offsets sourceOffsets) {
    processed.add(record);
  }

  @Override
  public DebeziumEngine.Offsets buildOffsets() {
    throw new UnsupportedOperationException("not used by the publisher");
  }
}
