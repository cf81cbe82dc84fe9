#!/bin/bash
# connect-distributed.sh <worker.properties>
: "${KAFKA_HEAP_OPTS:=-Xms256m -Xmx2g}"
: "${KAFKA_LOG4J_OPTS:=-Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties}"
export KAFKA_HEAP_OPTS KAFKA_LOG4J_OPTS
exec /opt/kafka/bin/kafka-run-class.sh org.apache.kafka.connect.cli.ConnectDistributed "$@"
