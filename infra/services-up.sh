#!/usr/bin/env bash
# Start all dev services (Redis, Postgres + pgvector, OpenSearch) on 127.0.0.1, then print the
# env file to source:  set -a; . .services/env; set +a
# Each service: infra/<service>-up.sh (idempotent; state in ${WIKIFUSE_SERVICES_DIR:-<repo>/.services}).
set -euo pipefail
INFRA="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=infra/lib.sh
source "$INFRA/lib.sh"

t0=$SECONDS
for service in redis postgres opensearch; do
  "$INFRA/$service-up.sh" >/dev/null   # each prints its URL; the env file has them all
done
WF_SERVICE=services wf_log "all up in $((SECONDS - t0))s; env file: $WF_ENV_FILE"
cat "$WF_ENV_FILE"
