#!/usr/bin/env bash
# Stop all dev services, in reverse start order. `--purge` also deletes their data.
# Every service is attempted even if an earlier one fails; the exit status reports any failure.
set -euo pipefail
INFRA="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=infra/lib.sh
source "$INFRA/lib.sh"

for arg in "$@"; do
  case "$arg" in
    --purge) ;;
    -h | --help) echo "usage: $0 [--purge]"; exit 0 ;;
    *) wf_die "unknown argument: $arg (usage: $0 [--purge])" ;;
  esac
done

rc=0
for service in opensearch postgres redis; do
  "$INFRA/$service-down.sh" "$@" || { rc=$?; WF_SERVICE=services wf_log "$service-down.sh failed (exit $rc)"; }
done
exit "$rc"
