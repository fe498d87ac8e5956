#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benches: initdb in a folder, loopback only,
# trust auth for the local superuser. Usage:
#   tools/pg/cluster.sh start DIR [PORT]   prints the admin URL on stdout
#   tools/pg/cluster.sh stop DIR | restart DIR
# Runs the server as the `postgres` user when started as root (initdb refuses root).
set -euo pipefail
cmd="${1:?start|stop|restart}"
dir="${2:?cluster folder}"
port="${3:-55432}"
bin="${KIOKU_PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}"
if [ -z "$bin" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "cluster.sh: no PostgreSQL binaries (set KIOKU_PG_BIN)" >&2
  exit 3
fi
as_owner() {
  if [ "$(id -u)" = "0" ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$cmd" in
  start)
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      mkdir -p "$dir/data" "$dir/socket"
      [ "$(id -u)" = "0" ] && chown -R postgres: "$dir"
      as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --no-instructions >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
      {
        echo "listen_addresses = '127.0.0.1'"
        echo "port = $port"
        echo "unix_socket_directories = '$dir/socket'"
        echo "max_connections = 200"
        echo "shared_buffers = 128MB"
        echo "fsync = on"
      } >>"$dir/data/postgresql.conf"
    fi
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start >/dev/null
    p=$(grep -E '^port = ' "$dir/data/postgresql.conf" | tail -1 | sed 's/port = //')
    echo "postgres://postgres@127.0.0.1:$p/postgres"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
  restart)
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 start >/dev/null
    ;;
  *)
    echo "cluster.sh: unknown command $cmd" >&2
    exit 2
    ;;
esac
