#!/usr/bin/env bash
# Makes the four base images docker-compose.yaml and the Dockerfiles name, from Debian packages and Maven Central,
# because no image registry is reachable here. Each is tagged with the name users pull, so the compose file and the
# Dockerfiles are checked exactly as users run them (images/README.md says what each stand-in honours):
#   docker.io/library/eclipse-temurin:21-jdk   Debian trixie, openjdk-21-jdk-headless
#   docker.io/library/eclipse-temurin:21-jre   Debian trixie, openjdk-21-jre-headless
#   docker.io/library/postgres:17              Debian trixie, postgresql-17, images/postgres
#   docker.io/apache/kafka:4.3.0               the 21-jre stand-in + Kafka 4.3.0 jars, images/kafka
# An image is made again when what it is made from changed (a label holds the hash of this script and of its
# images/ folder), otherwise kept; VIGIL_REBUILD_BASE_IMAGES=1 makes them all anew. Sourced by run.sh.
#
# The machine's own extra certificate authorities (/usr/local/share/ca-certificates/*.crt, e.g. the CA of a
# TLS-inspecting egress proxy, as on the CI machines) are added to each stand-in's trust store, as a company's
# base image would: without them, Maven inside the image build cannot reach Maven Central.
set -euo pipefail

vigil_base_images() {
  local here root cache suite mirror
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  root=$(cd "$here/../.." && pwd)
  cache=${VIGIL_COMPOSE_CHECK_CACHE:-/var/cache/vigil-compose-check}
  suite=${VIGIL_DEBIAN_SUITE:-trixie}
  mirror=${VIGIL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
  mkdir -p "$cache"

  local inputs
  inputs=$(cd "$here" && cat base-images.sh $(find images -type f | sort) | sha256sum | cut -c1-16)
  have() {
    [[ -z "${VIGIL_REBUILD_BASE_IMAGES:-}" ]] \
      && [[ "$(podman image inspect --format '{{index .Labels "dev.vigil.compose-check.inputs"}}' "$1" 2>/dev/null)" == "$inputs" ]]
  }
  rootfs() { # rootfs <image> <packages> <podman import --change ...>
    local image=$1 packages=$2
    shift 2
    local tar="$cache/$(echo "$image" | tr '/:' '__').tar"
    echo "compose-check: making $image from Debian $suite ($packages)"
    local hooks=()
    if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
      hooks=(--customize-hook='mkdir -p "$1/usr/local/share/ca-certificates"'
        --customize-hook='cp /usr/local/share/ca-certificates/*.crt "$1/usr/local/share/ca-certificates/"'
        --customize-hook='chroot "$1" update-ca-certificates >/dev/null')
    fi
    mmdebstrap --quiet --variant=minbase --include="$packages" "${hooks[@]}" "$suite" "$tar" "$mirror" \
      || { echo "compose-check: mmdebstrap failed for $image" >&2; return 1; }
    podman import --quiet "$@" "$tar" "$image" >/dev/null
    rm -f "$tar"
  }
  local java_env=(--change 'ENV LANG=C.UTF-8' --change 'CMD ["jshell"]'
    --change "LABEL dev.vigil.compose-check.inputs=$inputs")

  have docker.io/library/eclipse-temurin:21-jdk \
    || rootfs docker.io/library/eclipse-temurin:21-jdk openjdk-21-jdk-headless,ca-certificates,curl,wget "${java_env[@]}"
  have docker.io/library/eclipse-temurin:21-jre \
    || rootfs docker.io/library/eclipse-temurin:21-jre openjdk-21-jre-headless,ca-certificates,curl,wget "${java_env[@]}"

  if ! have docker.io/library/postgres:17; then
    have localhost/vigil-base/postgres-rootfs:17 \
      || rootfs localhost/vigil-base/postgres-rootfs:17 postgresql-17,ca-certificates \
        --change "LABEL dev.vigil.compose-check.inputs=$inputs"
    podman build --quiet --isolation chroot --label "dev.vigil.compose-check.inputs=$inputs" \
      -t docker.io/library/postgres:17 "$here/images/postgres" >/dev/null
    echo "compose-check: built docker.io/library/postgres:17"
  fi

  if ! have docker.io/apache/kafka:4.3.0; then
    local ctx="$cache/kafka-context"
    rm -rf "$ctx" && mkdir -p "$ctx"
    cp -r "$here/images/kafka/." "$ctx/"
    (cd "$root" && ./mvnw -q -f tools/compose-check/images/kafka/pom.xml \
      org.apache.maven.plugins:maven-dependency-plugin:3.11.0:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$ctx/libs")
    podman build --quiet --isolation chroot --label "dev.vigil.compose-check.inputs=$inputs" \
      -t docker.io/apache/kafka:4.3.0 "$ctx" >/dev/null
    echo "compose-check: built docker.io/apache/kafka:4.3.0 ($(ls "$ctx/libs" | wc -l) jars)"
  fi
}
