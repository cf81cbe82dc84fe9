#!/bin/bash
# Stand-in for the official postgres image's entry point, for the parts docker-compose.yaml uses:
#   - POSTGRES_USER (default postgres), POSTGRES_PASSWORD (required unless POSTGRES_HOST_AUTH_METHOD=trust),
#     POSTGRES_DB (default: the user's name), PGDATA (default /var/lib/postgresql/data);
#   - the first start of an empty PGDATA runs initdb (trust on the socket and localhost, as initdb and the
#     official image leave it), allows password (scram-sha-256) logins from any other host and creates the
#     database; later starts keep what is there;
#   - `postgres -c key=value …` as the command: the server runs with those arguments, as user postgres;
#   - any other command runs as given.
set -euo pipefail

if [[ "${1:-}" == -* ]]; then set -- postgres "$@"; fi
if [[ "${1:-}" != postgres ]]; then exec "$@"; fi

as_postgres() { setpriv --reuid=postgres --regid=postgres --init-groups "$@"; }

: "${PGDATA:=/var/lib/postgresql/data}"
: "${POSTGRES_USER:=postgres}"
: "${POSTGRES_DB:=$POSTGRES_USER}"
export PGDATA

if [[ "$(id -u)" -eq 0 ]]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  if [[ -z "${POSTGRES_PASSWORD:-}" && "${POSTGRES_HOST_AUTH_METHOD:-}" != trust ]]; then
    echo "postgres: POSTGRES_PASSWORD is not set; set it (or POSTGRES_HOST_AUTH_METHOD=trust)" >&2
    exit 1
  fi
  pwfile=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:-}" >"$pwfile"
  # As the official image: trust on the socket and localhost (initdb's default), passwords from anywhere else.
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --encoding=UTF8 >/dev/null 2>&1
  rm -f "$pwfile"
  printf 'host all all all %s\n' "${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}" >>"$PGDATA/pg_hba.conf"
  # A local-only server for the set-up statements, as the official image does.
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  if [[ "$POSTGRES_DB" != postgres ]]; then
    echo 'CREATE DATABASE :"db"' | psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
      --set db="$POSTGRES_DB" >/dev/null
  fi
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres: initialised $PGDATA (database $POSTGRES_DB, user $POSTGRES_USER)"
fi

server=$1
shift
exec "$server" -c listen_addresses='*' "$@"
