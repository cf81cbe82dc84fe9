#!/bin/bash
# Runs a Kafka main class with every jar under /opt/kafka/libs, as Apache Kafka's script of the same name does
# for the parts used here: KAFKA_HEAP_OPTS, KAFKA_JVM_PERFORMANCE_OPTS, KAFKA_OPTS, KAFKA_LOG4J_OPTS.
set -euo pipefail
base=/opt/kafka
: "${KAFKA_HEAP_OPTS:=-Xmx256m}"
: "${KAFKA_LOG4J_OPTS:=-Dlog4j2.configurationFile=$base/config/tools-log4j2.properties}"
# shellcheck disable=SC2086 # option lists are split on purpose, as in Apache Kafka's scripts
exec java $KAFKA_HEAP_OPTS ${KAFKA_JVM_PERFORMANCE_OPTS:-} $KAFKA_LOG4J_OPTS ${KAFKA_OPTS:-} \
  -cp "$base/libs/*" "$@"
