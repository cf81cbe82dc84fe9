package dev.vigil.relay.stream;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import org.apache.kafka.connect.source.SourceRecord;

/** Hands the engine's batches to Kafka; what the stream and the supervisor can ask of it. */
interface BatchPublisher extends DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
  /** The sends waiting for Kafka, and what health reads from them. */
  PendingAcks acks();

  /** Called once the engine has stopped: ends whatever the publisher left open in Kafka. */
  default void engineStopped() {}
}
