#!/usr/bin/env bash
# Start a dev Redis on 127.0.0.1 (Debian's redis-server, installed on first use).
# State: ${WIKIFUSE_SERVICES_DIR:-<repo>/.services}/redis/{redis.log,redis.pid,redis.port,data/}
# Port: $WIKIFUSE_REDIS_PORT, else the previous run's port if free, else a free one.
# Writes WIKIFUSE_REDIS_URL to ${WIKIFUSE_SERVICES_DIR}/env. Idempotent.
set -euo pipefail
WF_SERVICE=redis
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

START_TIMEOUT="${WIKIFUSE_REDIS_START_TIMEOUT:-30}"
STATE="$(wf_service_dir redis)"
PID_FILE="$STATE/redis.pid"
PORT_FILE="$STATE/redis.port"
LOG_FILE="$STATE/redis.log"
DATA_DIR="$STATE/data"
wf_lock_service "$STATE"

redis_url() { printf 'redis://127.0.0.1:%s/0' "$1"; }
redis_ping() { [[ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" == PONG ]]; }

ensure_installed() {
  if command -v redis-server >/dev/null 2>&1 && command -v redis-cli >/dev/null 2>&1; then
    return
  fi
  local apt_log="$STATE/apt-install.log"
  wf_log "redis-server not found, installing it with apt-get (log: $apt_log)"
  if ! (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server redis-tools) \
    >"$apt_log" 2>&1; then
    wf_log_tail "$apt_log"
    wf_die "could not install redis-server/redis-tools"
  fi
}

ensure_installed

# Already running?
pid="$(wf_read_pid "$PID_FILE")"
if wf_pid_alive "$pid" redis-server; then
  port="$(cat "$PORT_FILE" 2>/dev/null || true)"
  [[ -n "$port" ]] || wf_die "redis pid $pid is running but $PORT_FILE is missing; run infra/redis-down.sh"
  if wf_wait_for 10 "redis pid $pid to answer on port $port" redis_ping "$port"; then
    if [[ -n "${WIKIFUSE_REDIS_PORT:-}" && "$WIKIFUSE_REDIS_PORT" != "$port" ]]; then
      wf_log "warning: already running on port $port, ignoring WIKIFUSE_REDIS_PORT=$WIKIFUSE_REDIS_PORT (run redis-down.sh first)"
    fi
    wf_env_set WIKIFUSE_REDIS_URL "$(redis_url "$port")"
    wf_log "already running (pid $pid)"
    printf '%s\n' "$(redis_url "$port")"
    exit 0
  fi
  wf_log_tail "$LOG_FILE"
  wf_die "redis pid $pid is alive but does not answer on port $port; run infra/redis-down.sh"
fi
rm -f "$PID_FILE"

mkdir -p "$DATA_DIR"
port="$(wf_choose_port WIKIFUSE_REDIS_PORT "$PORT_FILE")"
wf_log "starting redis-server on 127.0.0.1:$port (log: $LOG_FILE)"
t0=$SECONDS
printf '\n===== %s redis-up: starting on port %s =====\n' "$(date -Is)" "$port" >>"$LOG_FILE"

# 8>&- below: the daemon must not inherit our lock (see wf_lock_service).
# Dev settings: no persistence (--save "" --appendonly no), loopback only, no unix socket.
if ! redis-server \
  --port "$port" \
  --bind 127.0.0.1 \
  --protected-mode yes \
  --daemonize yes \
  --pidfile "$PID_FILE" \
  --logfile "$LOG_FILE" \
  --dir "$DATA_DIR" \
  --save "" \
  --appendonly no \
  >>"$LOG_FILE" 2>&1 </dev/null 8>&-; then
  wf_log_tail "$LOG_FILE"
  wf_die "redis-server failed to start"
fi

if ! wf_wait_for "$START_TIMEOUT" "redis to answer PING on port $port" redis_ping "$port"; then
  wf_log_tail "$LOG_FILE"
  wf_die "redis did not come up within ${START_TIMEOUT}s"
fi
# --daemonize writes the pid file from the child; make sure it's there before reporting success.
wf_wait_for 5 "redis pid file" test -s "$PID_FILE" || wf_die "redis answers but wrote no pid file $PID_FILE"

wf_env_set WIKIFUSE_REDIS_URL "$(redis_url "$port")"
wf_log "up in $((SECONDS - t0))s (pid $(wf_read_pid "$PID_FILE"))"
printf '%s\n' "$(redis_url "$port")"
