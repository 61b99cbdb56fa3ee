#!/usr/bin/env bash
# Start a single-node OpenSearch 2.19.6 on 127.0.0.1 for dev/CI. Idempotent.
#
# No OpenSearch distribution can be downloaded here, so the node is assembled from Maven Central
# jars by infra/opensearch/pom.xml (built on first use, ~45 MB in infra/opensearch/target/lib)
# and started by dev.wikifuse.OpenSearchLauncher (see that file for why it skips Bootstrap).
#
# State: ${WIKIFUSE_SERVICES_DIR:-<repo>/.services}/opensearch/
#        {opensearch.log, opensearch.stdout.log, build.log, opensearch.pid, opensearch.port,
#         opensearch.transport.port, data/, tmp/}
# Ports: $WIKIFUSE_OPENSEARCH_HTTP_PORT / $WIKIFUSE_OPENSEARCH_TRANSPORT_PORT, else the previous
#        run's ports if free, else free ones.
# Also:  WIKIFUSE_OPENSEARCH_HEAP (default 512m), WIKIFUSE_OPENSEARCH_JAVA_OPTS (extra JVM flags),
#        WIKIFUSE_OPENSEARCH_START_TIMEOUT (default 180 s).
# Writes WIKIFUSE_OPENSEARCH_URL to ${WIKIFUSE_SERVICES_DIR}/env and prints the URL.
set -euo pipefail
WF_SERVICE=opensearch
# shellcheck source=infra/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

START_TIMEOUT="${WIKIFUSE_OPENSEARCH_START_TIMEOUT:-180}"
PROJECT="$WF_REPO_ROOT/infra/opensearch"
JAR="$PROJECT/target/opensearch-launcher-0.1.0.jar"
BUILD_STAMP="$PROJECT/target/.build-ok"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

STATE="$(wf_service_dir opensearch)"
PID_FILE="$STATE/opensearch.pid"
PORT_FILE="$STATE/opensearch.port"
TRANSPORT_PORT_FILE="$STATE/opensearch.transport.port"
LOG_FILE="$STATE/opensearch.log"
STDOUT_FILE="$STATE/opensearch.stdout.log"
# The launcher's command line carries path.home=<state dir>: that is how we recognise our node.
PID_PATTERN="dev.wikifuse.OpenSearchLauncher path.home=$STATE "
wf_lock_service "$STATE"   # holds fd 8 until exit; the node must not inherit it (8>&- below)

os_url() { printf 'http://127.0.0.1:%s' "$1"; }
http_req() {  # http_req METHOD URL [JSON_BODY]: body on stdout, non-zero unless HTTP 2xx
  if command -v curl >/dev/null 2>&1; then
    curl -sf --max-time 10 -X "$1" -H 'Content-Type: application/json' ${3:+--data "$3"} "$2"
  else
    "$WF_PY3" -c 'import sys, urllib.request as u
body = sys.argv[3].encode() if len(sys.argv) > 3 else None
req = u.Request(sys.argv[2], data=body, method=sys.argv[1], headers={"Content-Type": "application/json"})
sys.stdout.write(u.urlopen(req, timeout=10).read().decode())' "$@"
  fi
}
# Fail fast if the JVM died, rather than waiting out the whole timeout.
wait_healthy() {  # wait_healthy PORT PID
  local deadline=$((SECONDS + START_TIMEOUT))
  until http_req GET "$(os_url "$1")/_cluster/health?wait_for_status=yellow&timeout=2s" >/dev/null 2>&1; do
    # (no cmdline pattern here: a just-forked pid shows the shell's cmdline until it execs java)
    if ! wf_pid_alive "$2"; then
      wf_log_tail "$STDOUT_FILE"
      wf_log_tail "$LOG_FILE"
      rm -f "$PID_FILE"
      wf_die "the node (pid $2) exited during startup"
    fi
    if ((SECONDS >= deadline)); then
      wf_log_tail "$LOG_FILE"
      wf_die "not healthy (yellow) within ${START_TIMEOUT}s; pid $2 left running, stop it with infra/opensearch-down.sh"
    fi
    sleep 0.5
  done
}
publish() {  # publish PORT
  wf_env_set WIKIFUSE_OPENSEARCH_URL "$(os_url "$1")"
  os_url "$1"
  echo
}

# ---------------------------------------------------------------- already running?
pid="$(wf_read_pid "$PID_FILE")"
if wf_pid_alive "$pid" "$PID_PATTERN"; then
  port="$(<"$PORT_FILE")"
  if [[ -n "${WIKIFUSE_OPENSEARCH_HTTP_PORT:-}" && "$WIKIFUSE_OPENSEARCH_HTTP_PORT" != "$port" ]]; then
    wf_log "warning: already running on port $port, ignoring WIKIFUSE_OPENSEARCH_HTTP_PORT=$WIKIFUSE_OPENSEARCH_HTTP_PORT (run opensearch-down.sh first)"
  fi
  wait_healthy "$port" "$pid"   # it may still be starting (another `up` launched it)
  wf_log "already running (pid $pid)"
  publish "$port"
  exit 0
fi
rm -f "$PID_FILE"

# ---------------------------------------------------------------- build the launcher if needed
command -v "$JAVA" >/dev/null 2>&1 || wf_die "java not found (Java 17+ needed)"
if [[ ! -f "$BUILD_STAMP" || ! -f "$JAR" ]] ||
  [[ -n "$(find "$PROJECT/pom.xml" "$PROJECT/src" -newer "$BUILD_STAMP" -print -quit)" ]]; then
  command -v mvn >/dev/null 2>&1 || wf_die "mvn not found (apt-get install maven)"
  wf_log "building the launcher: mvn package (log: $STATE/build.log)"
  rm -rf "$PROJECT/target/lib"   # no stale jars on the classpath after a version bump
  if ! mvn -B -q -Dstyle.color=never -f "$PROJECT/pom.xml" package >"$STATE/build.log" 2>&1 8>&-; then
    wf_log_tail "$STATE/build.log"
    wf_die "maven build of $PROJECT failed"
  fi
  touch "$BUILD_STAMP"
fi

# ---------------------------------------------------------------- start
http_port="$(wf_choose_port WIKIFUSE_OPENSEARCH_HTTP_PORT "$PORT_FILE")"
transport_port="$(wf_choose_port WIKIFUSE_OPENSEARCH_TRANSPORT_PORT "$TRANSPORT_PORT_FILE")"
while [[ "$transport_port" == "$http_port" ]]; do   # both free, not yet bound: may coincide
  [[ -z "${WIKIFUSE_OPENSEARCH_TRANSPORT_PORT:-}" ]] || wf_die "http and transport ports are both $http_port"
  transport_port="$(wf_free_port)"
  printf '%s\n' "$transport_port" >"$TRANSPORT_PORT_FILE"
done
mkdir -p "$STATE/data" "$STATE/tmp"

# What OpenSearch's own launcher passes on JDK 17, minus the security manager (that belongs to the
# Bootstrap we skip) and AlwaysPreTouch (keeps RSS low); fixed small heap for a 2-core CI box.
# shellcheck disable=SC2206,SC2054  # the extra opts are word-split on purpose; SPI,COMPAT is one value
jvm_opts=(
  -Xms"${WIKIFUSE_OPENSEARCH_HEAP:-512m}" -Xmx"${WIKIFUSE_OPENSEARCH_HEAP:-512m}"
  -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+ShowCodeDetailsInExceptionMessages
  -Dfile.encoding=UTF-8 -Djava.locale.providers=SPI,COMPAT -Djava.io.tmpdir="$STATE/tmp"
  -Dio.netty.noUnsafe=true -Dio.netty.noKeySetOptimization=true -Dio.netty.recycler.maxCapacityPerThread=0
  -Dlog4j2.disable.jmx=true -Djna.nosys=true
  -Dwikifuse.opensearch.logs="$STATE"
  ${WIKIFUSE_OPENSEARCH_JAVA_OPTS:-}
)
wf_log "starting on 127.0.0.1:$http_port (transport $transport_port, log: $LOG_FILE)"
t0=$SECONDS
printf '\n===== %s opensearch-up: starting on port %s =====\n' "$(date -Is)" "$http_port" >>"$LOG_FILE"
# setsid: own session, so Ctrl-C or the end of the calling shell/CI step does not kill the node.
# In a non-interactive shell setsid and nohup exec in place, so $! is the JVM's pid.
(cd "$STATE" && exec setsid nohup "$JAVA" "${jvm_opts[@]}" \
  -cp "$JAR:$PROJECT/target/lib/*" dev.wikifuse.OpenSearchLauncher \
  path.home="$STATE" path.data="$STATE/data" path.logs="$STATE" \
  http.port="$http_port" transport.port="$transport_port" \
  </dev/null >"$STDOUT_FILE" 2>&1 8>&-) &
pid=$!
printf '%s\n' "$pid" >"$PID_FILE"

wait_healthy "$http_port" "$pid"
# One node: replicas can never be assigned, so make new indices default to 0 (green, not yellow).
# This is a cluster-state setting (ignored as a node setting); persistent, so kept in data/.
http_req PUT "$(os_url "$http_port")/_cluster/settings" \
  '{"persistent": {"cluster.default_number_of_replicas": 0}}' >/dev/null ||
  wf_die "could not set cluster.default_number_of_replicas"
wf_log "up in $((SECONDS - t0))s (pid $pid)"
publish "$http_port"
