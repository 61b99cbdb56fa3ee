#!/usr/bin/env bash
# Stop the dev/CI OpenSearch node started by infra/opensearch-up.sh (idempotent).
#   --purge   also delete its state (data, logs, ports) under ${WIKIFUSE_SERVICES_DIR:-<repo>/.services}/opensearch
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVICES_DIR="${WIKIFUSE_SERVICES_DIR:-$REPO/.services}"
STATE="$SERVICES_DIR/opensearch"
PID_FILE="$STATE/opensearch.pid"
ENV_FILE="$SERVICES_DIR/env"
STOP_TIMEOUT="${WIKIFUSE_OPENSEARCH_STOP_TIMEOUT:-60}"

PURGE=0
for arg in "$@"; do
  case "$arg" in
    --purge) PURGE=1 ;;
    -h|--help) sed -n '2,3p' "$0"; exit 0 ;;
    *) echo "opensearch-down: unknown argument: $arg" >&2; exit 2 ;;
  esac
done
say() { echo "opensearch-down: $*" >&2; }

# Only signal a pid whose command line is our launcher for this state dir (pid files go stale).
ours() { [[ -r "/proc/$1/cmdline" && "$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" == *"dev.wikifuse.OpenSearchLauncher path.home=$STATE "* ]]; }

pid="$(cat "$PID_FILE" 2>/dev/null || true)"
if [[ "$pid" =~ ^[0-9]+$ ]] && ours "$pid"; then
  # SIGTERM runs the launcher's shutdown hook: Node.close() flushes and releases the data dir.
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < STOP_TIMEOUT * 2; i++)); do ours "$pid" || break; sleep 0.5; done
  if ours "$pid"; then
    say "pid $pid still running after ${STOP_TIMEOUT}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for ((i = 0; i < 20; i++)); do ours "$pid" || break; sleep 0.5; done
  fi
  say "stopped (pid $pid)"
else
  say "not running"
fi
rm -f "$PID_FILE"

# Drop our line from the shared env file, keeping the others.
if [[ -f "$ENV_FILE" ]]; then
  tmp="$ENV_FILE.tmp.$$"
  grep -v '^WIKIFUSE_OPENSEARCH_URL=' "$ENV_FILE" >"$tmp" || true
  mv "$tmp" "$ENV_FILE"
fi

if ((PURGE)); then
  rm -rf "$STATE"
  say "purged $STATE"
fi
