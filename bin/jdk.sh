# Sourced (POSIX sh) by ./mvnw, bin/java and .ci/run: makes JAVA_HOME point at a JDK 21 or newer.
# Order: JAVA_HOME as given, the `java` on PATH, then the usual install folders (newest wins).
# Prints what to install and returns 1 when there is none.

vigil_java_major() { # the major version of the java binary $1, or nothing
  "$1" -XshowSettings:properties -version 2>&1 |
    awk -F' = ' '/java.specification.version/ { sub(/^1\./, "", $2); print $2; exit }'
}

vigil_is_jdk21() { # true when $1 is a JDK home whose java is 21 or newer
  [ -x "$1/bin/java" ] || return 1
  vigil_major=$(vigil_java_major "$1/bin/java")
  case "$vigil_major" in '' | *[!0-9]*) return 1 ;; esac
  [ "$vigil_major" -ge 21 ]
}

vigil_find_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && vigil_is_jdk21 "$JAVA_HOME"; then
    return 0
  fi
  if command -v java >/dev/null 2>&1; then
    vigil_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    if vigil_is_jdk21 "$vigil_home"; then
      JAVA_HOME=$vigil_home
      export JAVA_HOME
      return 0
    fi
  fi
  vigil_best="" vigil_best_major=0 vigil_noglob=""
  case $- in *f*) vigil_noglob=1 && set +f ;; esac # ./mvnw runs with globbing off
  for vigil_home in /usr/lib/jvm/* /usr/local/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* \
    "$HOME"/.jdks/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    vigil_is_jdk21 "$vigil_home" || continue
    if [ "$vigil_major" -gt "$vigil_best_major" ]; then
      vigil_best=$vigil_home vigil_best_major=$vigil_major
    fi
  done
  [ -z "$vigil_noglob" ] || set -f
  if [ -z "$vigil_best" ]; then
    echo "Vigil needs a JDK 21 or newer; none found in JAVA_HOME, PATH or /usr/lib/jvm." >&2
    echo "Install one (Debian/Ubuntu: apt-get install openjdk-21-jdk-headless) or set JAVA_HOME to it." >&2
    return 1
  fi
  JAVA_HOME=$vigil_best
  export JAVA_HOME
}

vigil_find_jdk
