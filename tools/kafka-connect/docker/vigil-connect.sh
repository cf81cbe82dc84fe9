#!/bin/bash
# Starts a Kafka Connect worker (distributed mode) from /opt/vigil/connect-distributed.properties and, when
# VIGIL_CONNECT_REGISTER=true, creates or updates Vigil's outbox connector from /opt/vigil/vigil-outbox-connector.json
# (PUT /connectors/<name>/config: idempotent, safe on every start of every worker).
# ${VIGIL_*} placeholders are filled from the environment; a missing or unsafe value stops the start with its name.
# Secrets are never placeholders: the connector reads them through the worker's config provider at run time.
set -euo pipefail

: "${VIGIL_CONNECT_GROUP_ID:=vigil-connect}"
: "${VIGIL_CONNECT_REST_HOST:=0.0.0.0}"
: "${VIGIL_CONNECT_REST_PORT:=8083}"
: "${VIGIL_CONNECT_ADVERTISED_HOST:=$(hostname)}"
: "${VIGIL_CONNECT_REPLICATION_FACTOR:=3}"
: "${VIGIL_CONNECT_SECRETS_DIR:=/run/secrets}"
: "${VIGIL_CONNECT_PLUGIN_PATH:=/opt/vigil/plugins}"
: "${VIGIL_CONNECT_CONNECTOR_NAME:=vigil-outbox}"
: "${VIGIL_CONNECT_SLOT:=vigil_connect}"
: "${VIGIL_CONNECT_PUBLICATION:=vigil_connect}"
: "${VIGIL_CONNECT_PUBLICATION_AUTOCREATE:=filtered}"
: "${VIGIL_CONNECT_SNAPSHOT_MODE:=no_data}"
: "${VIGIL_CONNECT_HEARTBEAT_INTERVAL_MS:=10000}"
: "${VIGIL_DB_PORT:=5432}"
: "${VIGIL_DB_SSLMODE:=require}"
: "${VIGIL_TOPIC:=vigil.alerts}"
: "${VIGIL_TOPIC_PARTITIONS:=6}"
: "${VIGIL_TOPIC_REPLICATION_FACTOR:=3}"
: "${VIGIL_CONNECT_REGISTER:=true}"
# Local convenience (compose): a password given in the environment becomes the secret file the connector reads, and
# leaves the environment. In production mount the file instead (e.g. a Kubernetes secret at /run/secrets/db_password).
if [[ -n "${VIGIL_DB_PASSWORD:-}" ]]; then
  mkdir -p "$VIGIL_CONNECT_SECRETS_DIR"
  (umask 077 && printf '%s' "$VIGIL_DB_PASSWORD" > "$VIGIL_CONNECT_SECRETS_DIR/db_password")
  unset VIGIL_DB_PASSWORD
fi
export "${!VIGIL_@}"

log() { echo "$(date -u +%FT%TZ) vigil-connect $*" >&2; }

# Fills ${VIGIL_X} in file $1; refuses values that could break out of a JSON string or a properties line.
fill() {
  local text name value
  text=$(<"$1")
  for name in $(grep -o '\${VIGIL_[A-Z0-9_]*}' "$1" | sort -u | tr -d '${}'); do
    if [[ -z "${!name+x}" ]]; then
      log "event=config_missing key=$name file=$1"; exit 64
    fi
    value=${!name}
    if [[ "$value" == *'"'* || "$value" == *'\'* || "$value" == *$'\n'* || "$value" == *'${'* ]]; then
      log "event=config_refused key=$name reason=quote_backslash_newline_or_reference"; exit 64
    fi
    text=${text//"\${$name}"/"$value"}
  done
  printf '%s\n' "$text"
}

# PUT over bash's /dev/tcp: the base image has no HTTP client, and the worker's REST API is on this host.
put_config() {
  local path=$1 body=$2 status
  { exec 3<>"/dev/tcp/127.0.0.1/${VIGIL_CONNECT_REST_PORT}"; } 2>/dev/null || return 1
  printf 'PUT %s HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' \
    "$path" "$(printf '%s' "$body" | wc -c)" "$body" >&3
  read -r _ status _ <&3 || status=000
  exec 3<&-
  [[ "$status" == 200 || "$status" == 201 ]]
}

register() {
  local name=$VIGIL_CONNECT_CONNECTOR_NAME config=$1
  for attempt in $(seq 1 120); do
    kill -0 "$worker" 2>/dev/null || { log "event=worker_exited_before_registration"; return 1; }
    if put_config "/connectors/${name}/config" "$config"; then
      log "event=connector_registered connector=$name attempt=$attempt"
      return 0
    fi
    sleep 2
  done
  log "event=connector_not_registered connector=$name reason=worker_rest_api_refused_or_unreachable"
  return 1
}

# Both files are filled before anything starts, so a bad setting stops the start with its name.
fill /opt/vigil/connect-distributed.properties > /tmp/connect-distributed.properties
connector_json=$(fill /opt/vigil/vigil-outbox-connector.json)
# The stored config is the "config" object of the shipped file.
connector_config=$(printf '%s' "$connector_json" | sed -n '/"config": {/,$p' | sed '1s/.*"config": {/{/' | sed '$d')
log "event=worker_starting group=$VIGIL_CONNECT_GROUP_ID bootstrap=$VIGIL_KAFKA_BOOTSTRAP_SERVERS"
/opt/kafka/bin/connect-distributed.sh /tmp/connect-distributed.properties &
worker=$!
trap 'kill -TERM "$worker" 2>/dev/null' TERM INT
if [[ "$VIGIL_CONNECT_REGISTER" == true ]]; then
  register "$connector_config" || { kill -TERM "$worker"; wait "$worker"; exit 1; }
fi
wait "$worker"
