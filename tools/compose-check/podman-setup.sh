#!/usr/bin/env bash
# Makes a Docker-compatible engine out of Debian's podman on a machine without Docker, and starts its API
# service. Idempotent; sourced by run.sh (as root), which then talks to the engine through DOCKER_HOST.
#   - installs podman, its network stack, docker-compose, mmdebstrap and jq from Debian;
#   - registers oci-runtime-no-rlimits (runc without process.rlimits) as podman's default OCI runtime, because
#     these machines refuse setrlimit to containers. The settings live in files of the check's own, named by
#     CONTAINERS_CONF and CONTAINERS_REGISTRIES_CONF for every podman command and the API service started here:
#     the machine's /etc/containers stays as it is;
#   - starts `podman system service` on a socket of its own and exports DOCKER_HOST for docker-compose.
set -euo pipefail

vigil_podman_setup() {
  local here conf missing=() pair
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  conf=${VIGIL_COMPOSE_CHECK_CACHE:-/var/cache/vigil-compose-check}/containers

  for pair in podman:podman netavark:netavark aardvark-dns:aardvark-dns docker-compose:docker-compose \
    mmdebstrap:mmdebstrap jq:jq runc:runc curl:curl; do
    command -v "${pair%%:*}" >/dev/null || [[ -x /usr/lib/podman/${pair%%:*} ]] || missing+=("${pair#*:}")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "compose-check: installing Debian packages: ${missing[*]}"
    apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 \
      || { apt-get update -q >/dev/null && apt-get install -y -q "${missing[@]}" >/dev/null; }
  fi

  mkdir -p "$conf"
  install -m 0755 "$here/oci-runtime-no-rlimits" "$conf/oci-runtime-no-rlimits"
  cat >"$conf/containers.conf" <<CONF
[engine]
runtime = "vigil-runc"
[engine.runtimes]
vigil-runc = ["$conf/oci-runtime-no-rlimits"]
CONF
  # Short names (postgres:17) resolve as Docker resolves them, to docker.io, where the stand-ins are tagged.
  cat >"$conf/registries.conf" <<'CONF'
unqualified-search-registries = ["docker.io"]
short-name-mode = "permissive"
CONF
  export CONTAINERS_CONF="$conf/containers.conf" CONTAINERS_REGISTRIES_CONF="$conf/registries.conf"

  export VIGIL_PODMAN_SOCKET=${VIGIL_PODMAN_SOCKET:-/run/vigil-podman/podman.sock}
  export DOCKER_HOST="unix://$VIGIL_PODMAN_SOCKET"
  if ! curl -sf --unix-socket "$VIGIL_PODMAN_SOCKET" http://d/_ping >/dev/null 2>&1; then
    mkdir -p "$(dirname "$VIGIL_PODMAN_SOCKET")"
    rm -f "$VIGIL_PODMAN_SOCKET"
    podman system service --time=0 "$DOCKER_HOST" >/tmp/vigil-podman-service.log 2>&1 &
    VIGIL_PODMAN_SERVICE_PID=$!
    for _ in $(seq 1 50); do
      curl -sf --unix-socket "$VIGIL_PODMAN_SOCKET" http://d/_ping >/dev/null 2>&1 && break
      sleep 0.2
    done
    curl -sf --unix-socket "$VIGIL_PODMAN_SOCKET" http://d/_ping >/dev/null \
      || { echo "compose-check: podman system service did not answer on $VIGIL_PODMAN_SOCKET" >&2; return 1; }
  fi
  echo "compose-check: podman $(podman version --format '{{.Client.Version}}') serving $DOCKER_HOST"
}

# Stops the API service if vigil_podman_setup started it (one that was already running is left alone).
vigil_podman_stop() {
  if [[ -n "${VIGIL_PODMAN_SERVICE_PID:-}" ]]; then
    kill "$VIGIL_PODMAN_SERVICE_PID" 2>/dev/null || true
    wait "$VIGIL_PODMAN_SERVICE_PID" 2>/dev/null || true
    VIGIL_PODMAN_SERVICE_PID=""
  fi
}
