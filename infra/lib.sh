# shellcheck shell=bash
# Shared helpers for the infra/*-up.sh / *-down.sh scripts. Source it, don't run it:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Conventions:
#   - state lives in ${WIKIFUSE_SERVICES_DIR:-<repo>/.services}/<service>/
#     (<service>.log, <service>.pid, <service>.port, data/ ...)
#   - ${WIKIFUSE_SERVICES_DIR}/env is a sourceable KEY=VALUE file; each service owns its lines.
#   - every service binds 127.0.0.1 only.

# Repo root = parent of the folder holding this file (works through symlinks to the scripts).
WF_REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
WIKIFUSE_SERVICES_DIR="${WIKIFUSE_SERVICES_DIR:-$WF_REPO_ROOT/.services}"
mkdir -p "$WIKIFUSE_SERVICES_DIR"
WIKIFUSE_SERVICES_DIR="$(cd "$WIKIFUSE_SERVICES_DIR" && pwd -P)"
export WIKIFUSE_SERVICES_DIR
WF_ENV_FILE="$WIKIFUSE_SERVICES_DIR/env"

# Some python for the small socket helpers (any python3 works; the venv one as a fallback).
if [[ -z "${WF_PY3:-}" ]]; then
  if command -v python3 >/dev/null 2>&1; then
    WF_PY3=python3
  elif [[ -x "$WF_REPO_ROOT/.venv/bin/python" ]]; then
    WF_PY3="$WF_REPO_ROOT/.venv/bin/python"
  else
    WF_PY3="${PYTHON:-python3}"
  fi
fi

# ---------------------------------------------------------------- messages

wf_log() { printf '[%s] %s\n' "${WF_SERVICE:-infra}" "$*" >&2; }
wf_die() { printf '[%s] ERROR: %s\n' "${WF_SERVICE:-infra}" "$*" >&2; exit 1; }

# wf_log_tail FILE [LINES]: print the end of a log file to stderr (for failures).
# wf_parse_purge ARGS...: the down scripts' only option; prints 1 with --purge, else 0.
wf_parse_purge() {
  local purge=0 arg
  for arg in "$@"; do
    case "$arg" in
      --purge) purge=1 ;;
      -h | --help) echo "usage: $0 [--purge]" >&2; exit 0 ;;
      *) wf_die "unknown argument: $arg (usage: $0 [--purge])" ;;
    esac
  done
  printf '%s\n' "$purge"
}

wf_log_tail() {
  local file="$1" lines="${2:-40}"
  if [[ -s "$file" ]]; then
    printf -- '----- last %s lines of %s -----\n' "$lines" "$file" >&2
    tail -n "$lines" "$file" >&2 || true
    printf -- '----- end of %s -----\n' "$file" >&2
  else
    printf '(log %s is empty or missing)\n' "$file" >&2
  fi
}

# wf_service_dir NAME: create and print the state folder of a service.
wf_service_dir() {
  local dir="$WIKIFUSE_SERVICES_DIR/$1"
  mkdir -p "$dir"
  printf '%s\n' "$dir"
}

# wf_short_hash STRING: 12 hex chars, stable per string (used for /tmp fallbacks).
wf_short_hash() { printf '%s' "$1" | sha256sum | cut -c1-12; }

# wf_runtime_dir: a short, per-services-dir folder under /tmp for things that can't live in
# the state folder (unix sockets with long paths, data that another OS user must reach).
wf_runtime_dir() {
  local dir
  dir="/tmp/wikifuse-services-$(wf_short_hash "$WIKIFUSE_SERVICES_DIR")"
  if [[ -L "$dir" ]]; then wf_die "$dir is a symlink; refusing to use it"; fi
  mkdir -p "$dir"
  # Only trust it if we own it (it's in world-writable /tmp).
  if [[ "$(stat -c %u "$dir")" != "$(id -u)" ]]; then
    wf_die "$dir exists but is owned by uid $(stat -c %u "$dir"), not $(id -u)"
  fi
  chmod 0755 "$dir"
  printf '%s\n' "$dir"
}

# ---------------------------------------------------------------- ports

# wf_port_is_free PORT: 0 if nothing listens on 127.0.0.1:PORT (same SO_REUSEADDR the servers use).
wf_port_is_free() {
  "$WF_PY3" - "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
PY
}

# wf_free_port: print a port the kernel considers free on 127.0.0.1.
wf_free_port() {
  "$WF_PY3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wf_choose_port ENV_VAR_NAME PORT_FILE: the port to start on.
#   1. $ENV_VAR_NAME if set (must be free, else fail loudly)
#   2. the port recorded by a previous run, if it is still free
#   3. a fresh free port
# The choice is written to PORT_FILE.
wf_choose_port() {
  local var="$1" port_file="$2" port=""
  if [[ -n "${!var:-}" ]]; then
    port="${!var}"
    if ! [[ "$port" =~ ^[0-9]+$ ]] || ((port < 1 || port > 65535)); then
      wf_die "$var=$port is not a port number"
    fi
    wf_port_is_free "$port" || wf_die "$var=$port: 127.0.0.1:$port is already in use"
  elif [[ -s "$port_file" ]] && port="$(<"$port_file")" && [[ "$port" =~ ^[0-9]+$ ]] && wf_port_is_free "$port"; then
    :
  else
    port="$(wf_free_port)"
  fi
  printf '%s\n' "$port" >"$port_file"
  printf '%s\n' "$port"
}

# ---------------------------------------------------------------- waiting

# wf_wait_for TIMEOUT_SECONDS DESCRIPTION CMD [ARGS...]: poll CMD until it succeeds.
wf_wait_for() {
  local timeout="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + timeout))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      wf_log "timed out after ${timeout}s waiting for $what"
      return 1
    fi
    sleep 0.2
  done
}

# ---------------------------------------------------------------- pids

# wf_read_pid PID_FILE: print the pid in the file (first line), or nothing.
wf_read_pid() {
  local pid=""
  if [[ -r "$1" ]]; then read -r pid <"$1" 2>/dev/null || true; fi
  [[ "$pid" =~ ^[0-9]+$ ]] && printf '%s\n' "$pid"
  return 0
}

# wf_pid_alive PID [PATTERN]: 0 if PID is a live (non-zombie) process, and if PATTERN is given,
# its command line matches it (guards against pid reuse after a crash).
wf_pid_alive() {
  local pid="$1" pattern="${2:-}"
  [[ -n "$pid" ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  local state
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
  [[ "$state" != "Z" ]] || return 1
  if [[ -n "$pattern" ]]; then
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$pattern" || return 1
  fi
}

# wf_wait_pid_gone PID TIMEOUT_SECONDS: 0 once PID has exited, 1 on timeout.
wf_wait_pid_gone() {
  local pid="$1" timeout="$2"
  local deadline=$((SECONDS + timeout))
  while wf_pid_alive "$pid"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}

# wf_kill_pid PID [TERM_TIMEOUT]: SIGTERM, wait, then SIGKILL. For after a clean stop failed.
wf_kill_pid() {
  local pid="$1" timeout="${2:-10}"
  wf_pid_alive "$pid" || return 0
  wf_log "sending SIGTERM to pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  if ! wf_wait_pid_gone "$pid" "$timeout"; then
    wf_log "pid $pid still alive after ${timeout}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    wf_wait_pid_gone "$pid" 5 || wf_die "could not kill pid $pid"
  fi
}

# ---------------------------------------------------------------- env file

# wf_env_set KEY VALUE: write/replace KEY=VALUE in the env file, keeping the other lines.
# wf_env_unset KEY: remove KEY's line.
# Both take a lock, since several services' scripts may run at the same time.
wf_env_set() { _wf_env_edit "$1" "$2"; }
wf_env_unset() { _wf_env_edit "$1" ""; }

_wf_env_edit() {
  local key="$1" value="$2"
  [[ "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || wf_die "bad env key: $key"
  (
    flock -w 30 9 || wf_die "could not lock $WF_ENV_FILE.lock"
    local tmp="$WF_ENV_FILE.tmp.$$"
    if [[ -f "$WF_ENV_FILE" ]]; then
      grep -v -E "^(export[[:space:]]+)?${key}=" "$WF_ENV_FILE" >"$tmp" || true
    else
      : >"$tmp"
    fi
    if [[ -n "$value" ]]; then
      # %q keeps the file sourceable whatever the value; URLs come out unquoted.
      printf '%s=%q\n' "$key" "$value" >>"$tmp"
    fi
    mv -f "$tmp" "$WF_ENV_FILE"
  ) 9>>"$WF_ENV_FILE.lock"
}

# ---------------------------------------------------------------- locking

# wf_lock_service STATE_DIR: serialize up/down of one service (held on fd 8 until the script exits).
# Start daemons with `8>&-`, or they inherit the lock and hold it for as long as they run.
wf_lock_service() {
  exec 8>>"$1/.lock"
  flock -w "${WIKIFUSE_LOCK_TIMEOUT:-120}" 8 || wf_die "another up/down is still running (lock $1/.lock)"
}
