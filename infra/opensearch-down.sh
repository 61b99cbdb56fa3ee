#!/usr/bin/env bash
# Stop the dev OpenSearch started by opensearch-up.sh. `--purge` also deletes its state folder
# (data, logs, ports). Exits 0 when it isn't running.
set -euo pipefail
WF_SERVICE=opensearch
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

purge="$(wf_parse_purge "$@")"

STOP_TIMEOUT="${WIKIFUSE_OPENSEARCH_STOP_TIMEOUT:-60}"
STATE="$WIKIFUSE_SERVICES_DIR/opensearch"
PID_FILE="$STATE/opensearch.pid"
[[ -d "$STATE" ]] || { wf_log "not running"; wf_env_unset WIKIFUSE_OPENSEARCH_URL; exit 0; }
wf_lock_service "$STATE"

pid="$(wf_read_pid "$PID_FILE")"
# Only signal the pid if it is still our launcher for this state dir (pid files go stale).
if wf_pid_alive "$pid" "dev.wikifuse.OpenSearchLauncher path.home=$STATE "; then
  t0=$SECONDS
  # SIGTERM runs the launcher's shutdown hook: Node.close() flushes and releases the data dir.
  wf_kill_pid "$pid" "$STOP_TIMEOUT"
  wf_log "stopped in $((SECONDS - t0))s (pid $pid)"
else
  wf_log "not running"
fi
rm -f "$PID_FILE"
wf_env_unset WIKIFUSE_OPENSEARCH_URL

if ((purge)); then
  rm -rf "$STATE"
  wf_log "purged $STATE"
fi
