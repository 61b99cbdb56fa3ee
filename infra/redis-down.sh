#!/usr/bin/env bash
# Stop the dev Redis started by redis-up.sh. `--purge` also deletes its state folder.
# Exits 0 when it isn't running.
set -euo pipefail
WF_SERVICE=redis
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

purge="$(wf_parse_purge "$@")"

STOP_TIMEOUT="${WIKIFUSE_REDIS_STOP_TIMEOUT:-10}"
STATE="$WIKIFUSE_SERVICES_DIR/redis"
PID_FILE="$STATE/redis.pid"
PORT_FILE="$STATE/redis.port"
[[ -d "$STATE" ]] || { wf_log "not running"; wf_env_unset WIKIFUSE_REDIS_URL; exit 0; }
wf_lock_service "$STATE"

pid="$(wf_read_pid "$PID_FILE")"
if wf_pid_alive "$pid" redis-server; then
  port="$(cat "$PORT_FILE" 2>/dev/null || true)"
  t0=$SECONDS
  wf_log "stopping redis (pid $pid, port ${port:-?})"
  if [[ -n "$port" ]] && command -v redis-cli >/dev/null 2>&1; then
    # SHUTDOWN closes the connection without a reply; a non-zero exit here is normal.
    timeout 5 redis-cli -h 127.0.0.1 -p "$port" shutdown nosave >/dev/null 2>&1 || true
  else
    kill -TERM "$pid" 2>/dev/null || true
  fi
  if ! wf_wait_pid_gone "$pid" "$STOP_TIMEOUT"; then
    wf_log "redis did not stop within ${STOP_TIMEOUT}s"
    wf_kill_pid "$pid" 5
  fi
  wf_log "stopped in $((SECONDS - t0))s"
else
  wf_log "not running"
fi
rm -f "$PID_FILE"
wf_env_unset WIKIFUSE_REDIS_URL

if ((purge)); then
  rm -rf "$STATE"
  wf_log "purged $STATE"
fi
