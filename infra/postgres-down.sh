#!/usr/bin/env bash
# Stop the dev Postgres started by postgres-up.sh (pg_ctl stop -m fast, then signals).
# `--purge` also deletes the data (wherever it lives) and the state folder.
# Exits 0 when it isn't running.
set -euo pipefail
WF_SERVICE=postgres
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd /

purge="$(wf_parse_purge "$@")"

STOP_TIMEOUT="${WIKIFUSE_POSTGRES_STOP_TIMEOUT:-30}"
PG_OS_USER="${WIKIFUSE_POSTGRES_OS_USER:-embedded_postgres}"
STATE="$WIKIFUSE_SERVICES_DIR/postgres"
PID_FILE="$STATE/postgres.pid"
LOG_FILE="$STATE/postgres.log"

if [[ ! -d "$STATE" ]]; then
  wf_log "not running"
  wf_env_unset WIKIFUSE_DATABASE_URL
  exit 0
fi
wf_lock_service "$STATE"

PGDATA="$(cat "$STATE/pgdata.path" 2>/dev/null || true)"
PG_RUN_BIN="$(cat "$STATE/bin.path" 2>/dev/null || true)"

# The server's own pid file is the truth; ours is a copy for discoverability.
pid=""
[[ -n "$PGDATA" ]] && pid="$(wf_read_pid "$PGDATA/postmaster.pid")"
[[ -n "$pid" ]] || pid="$(wf_read_pid "$PID_FILE")"

if wf_pid_alive "$pid" postgres; then
  t0=$SECONDS
  wf_log "stopping postgres (pid $pid, data $PGDATA)"
  printf '\n===== %s postgres-down: stopping =====\n' "$(date -Is)" >>"$LOG_FILE"
  stopped=0
  if [[ -n "$PGDATA" && -x "$PG_RUN_BIN/pg_ctl" ]]; then
    if [[ "$(id -u)" == 0 ]]; then
      runuser -u "$PG_OS_USER" -- "$PG_RUN_BIN/pg_ctl" -D "$PGDATA" -m fast -w -t "$STOP_TIMEOUT" stop \
        >>"$LOG_FILE" 2>&1 </dev/null && stopped=1
    else
      "$PG_RUN_BIN/pg_ctl" -D "$PGDATA" -m fast -w -t "$STOP_TIMEOUT" stop >>"$LOG_FILE" 2>&1 </dev/null && stopped=1
    fi
  else
    kill -INT "$pid" 2>/dev/null || true  # SIGINT = fast shutdown
  fi
  if ((stopped)) || wf_wait_pid_gone "$pid" "$STOP_TIMEOUT"; then
    :
  else
    wf_log "postgres did not stop cleanly within ${STOP_TIMEOUT}s; immediate shutdown (SIGQUIT)"
    kill -QUIT "$pid" 2>/dev/null || true
    if ! wf_wait_pid_gone "$pid" 5; then
      wf_log "sending SIGKILL to pid $pid"
      kill -KILL "$pid" 2>/dev/null || true
      wf_wait_pid_gone "$pid" 5 || wf_die "could not stop postgres pid $pid"
    fi
  fi
  wf_log "stopped in $((SECONDS - t0))s"
else
  wf_log "not running"
fi
rm -f "$PID_FILE"
wf_env_unset WIKIFUSE_DATABASE_URL

if ((purge)); then
  runtime="/tmp/wikifuse-services-$(wf_short_hash "$WIKIFUSE_SERVICES_DIR")"
  socket_dir="$(cat "$STATE/socket.path" 2>/dev/null || true)"
  # Data/socket outside the state folder only when they are ours (under our /tmp runtime folder).
  for dir in "$PGDATA" "$socket_dir"; do
    if [[ -n "$dir" && "$dir" == "$runtime/"* ]]; then rm -rf "$dir"; fi
  done
  rm -rf "$runtime/postgres" "$runtime/pgsocket" "$runtime/pg-install"
  rmdir "$runtime" 2>/dev/null || true
  rm -rf "$STATE"
  wf_log "purged $STATE${PGDATA:+ (data $PGDATA)}"
fi
