#!/bin/bash
# kafka-server-start.sh <server.properties> [--override key=value ...]
: "${KAFKA_HEAP_OPTS:=-Xmx512m -Xms512m}"
: "${KAFKA_LOG4J_OPTS:=-Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties}"
export KAFKA_HEAP_OPTS KAFKA_LOG4J_OPTS
exec /opt/kafka/bin/kafka-run-class.sh kafka.Kafka "$@"
