package dev.vigil.relay.stream;

import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.time.Duration;
import org.apache.kafka.connect.source.SourceRecord;

/** Hands the engine's batches to Kafka; what the stream and the supervisor can ask of it. */
interface BatchPublisher extends DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {
  /** How long the current batch has been waiting for Kafka (0 = none). */
  Duration pendingAck();

  /** The last reason Kafka gave for not accepting a record of the current batch, or null. */
  String pendingReason();

  /** Whether this run has relayed a batch. */
  boolean relayedABatch();

  /** Called once the engine has stopped: ends whatever the publisher left open in Kafka. */
  default void engineStopped() {}
}
