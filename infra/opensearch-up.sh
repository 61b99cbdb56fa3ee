#!/usr/bin/env bash
# Start a single-node OpenSearch 2.19.6 for dev/CI (idempotent).
#
# No OpenSearch distribution can be downloaded here, so the node is assembled from Maven
# Central jars by infra/opensearch/pom.xml and started by dev.wikifuse.OpenSearchLauncher.
#
# State: ${WIKIFUSE_SERVICES_DIR:-<repo>/.services}/opensearch/{data,logs,tmp,opensearch.pid,ports}
# Env:   WIKIFUSE_OPENSEARCH_HTTP_PORT / WIKIFUSE_OPENSEARCH_TRANSPORT_PORT  fixed ports (default: free ones)
#        WIKIFUSE_OPENSEARCH_HEAP (default 512m), WIKIFUSE_OPENSEARCH_JAVA_OPTS (extra JVM flags)
#        WIKIFUSE_OPENSEARCH_START_TIMEOUT (seconds, default 180)
# On success prints the URL and writes WIKIFUSE_OPENSEARCH_URL=... into ${WIKIFUSE_SERVICES_DIR}/env.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROJECT="$REPO/infra/opensearch"
SERVICES_DIR="${WIKIFUSE_SERVICES_DIR:-$REPO/.services}"
STATE="$SERVICES_DIR/opensearch"
PID_FILE="$STATE/opensearch.pid"
PORTS_FILE="$STATE/ports"
ENV_FILE="$SERVICES_DIR/env"
LOG="$STATE/logs/opensearch.log"
JAR="$PROJECT/target/opensearch-launcher-0.1.0.jar"
STAMP="$PROJECT/target/.wikifuse-build-ok"
TIMEOUT="${WIKIFUSE_OPENSEARCH_START_TIMEOUT:-180}"
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"

say() { echo "opensearch-up: $*" >&2; }
die() { say "$*"; exit 1; }

mkdir -p "$STATE/data" "$STATE/logs" "$STATE/tmp"
# Serialise concurrent `up` calls (fd 9 is closed for the node below, so it never holds the lock).
if command -v flock >/dev/null; then exec 9>"$STATE/.lock"; flock -w 600 9 || die "lock busy"; fi

# --- HTTP helpers: curl if present, else python3 --------------------------------------------
http_get() {  # http_get URL -> body on stdout, non-zero unless HTTP 2xx
  if command -v curl >/dev/null; then curl -sf --max-time 10 "$1"
  else python3 -c 'import sys,urllib.request as u; sys.stdout.write(u.urlopen(sys.argv[1], timeout=10).read().decode())' "$1" 2>/dev/null
  fi
}

# --- is our node already running? -------------------------------------------------------------
node_pid() {  # prints the pid if the pid file names a live launcher of *this* state dir
  local pid
  [[ -f "$PID_FILE" ]] || return 1
  pid="$(cat "$PID_FILE")"
  [[ "$pid" =~ ^[0-9]+$ ]] && [[ -r "/proc/$pid/cmdline" ]] || return 1
  # Guards against pid reuse: the command line must be our launcher with our path.home.
  # (no `| grep -q` here: with pipefail an early grep exit can fail the pipeline via SIGPIPE)
  [[ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" == *"dev.wikifuse.OpenSearchLauncher path.home=$STATE "* ]] || return 1
  echo "$pid"
}

# --- ports ------------------------------------------------------------------------------------
port_free() {
  if command -v python3 >/dev/null; then
    python3 -c 'import socket,sys; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1])))' "$1" 2>/dev/null
  elif (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then return 1  # something answers there
  fi
}
free_port() {  # an ephemeral port nobody listens on, different from $1
  local p
  while :; do
    if command -v python3 >/dev/null; then
      p="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    else p=$((20000 + RANDOM % 30000)); fi
    [[ "$p" != "${1:-}" ]] && port_free "$p" && { echo "$p"; return; }
  done
}

HTTP_PORT="" TRANSPORT_PORT=""
if pid="$(node_pid)"; then
  # shellcheck disable=SC1090
  source "$PORTS_FILE"
  say "already running (pid $pid, http port $HTTP_PORT)"
  [[ "${WIKIFUSE_OPENSEARCH_HTTP_PORT:-$HTTP_PORT}" == "$HTTP_PORT" ]] ||
    say "warning: WIKIFUSE_OPENSEARCH_HTTP_PORT=$WIKIFUSE_OPENSEARCH_HTTP_PORT ignored; run opensearch-down.sh first"
else
  rm -f "$PID_FILE"
  # Reuse the previous ports when still free, so the URL stays stable across restarts.
  # shellcheck disable=SC1090
  [[ -f "$PORTS_FILE" ]] && source "$PORTS_FILE"
  HTTP_PORT="${WIKIFUSE_OPENSEARCH_HTTP_PORT:-$HTTP_PORT}"
  TRANSPORT_PORT="${WIKIFUSE_OPENSEARCH_TRANSPORT_PORT:-$TRANSPORT_PORT}"
  if [[ -z "$HTTP_PORT" ]] || { [[ -z "${WIKIFUSE_OPENSEARCH_HTTP_PORT:-}" ]] && ! port_free "$HTTP_PORT"; }; then
    HTTP_PORT="$(free_port)"
  fi
  if [[ -z "$TRANSPORT_PORT" || "$TRANSPORT_PORT" == "$HTTP_PORT" ]] ||
     { [[ -z "${WIKIFUSE_OPENSEARCH_TRANSPORT_PORT:-}" ]] && ! port_free "$TRANSPORT_PORT"; }; then
    TRANSPORT_PORT="$(free_port "$HTTP_PORT")"
  fi
  port_free "$HTTP_PORT" || die "http port $HTTP_PORT is already in use"
  port_free "$TRANSPORT_PORT" || die "transport port $TRANSPORT_PORT is already in use"
  printf 'HTTP_PORT=%s\nTRANSPORT_PORT=%s\n' "$HTTP_PORT" "$TRANSPORT_PORT" >"$PORTS_FILE"

  # --- build the launcher only when needed ----------------------------------------------------
  command -v "$JAVA" >/dev/null || die "java not found (Java 17+ needed)"
  if [[ ! -f "$STAMP" || ! -f "$JAR" || ! -d "$PROJECT/target/lib" ]] ||
     [[ -n "$(find "$PROJECT/pom.xml" "$PROJECT/src" -newer "$STAMP" -print -quit)" ]]; then
    command -v mvn >/dev/null || die "mvn not found (apt-get install maven)"
    say "building the launcher (mvn package)..."
    rm -rf "$PROJECT/target/lib"   # no stale jars left on the classpath after a version change
    mvn -q -B -f "$PROJECT/pom.xml" package 9>&- || die "maven build failed"
    touch "$STAMP"
  fi

  # --- start ------------------------------------------------------------------------------------
  # JVM flags are the ones OpenSearch's own launcher adds on JDK 17 (minus the security manager,
  # which the Bootstrap we skip would install), with a fixed small heap for a 2-core CI box.
  # shellcheck disable=SC2206,SC2054  # word-split the extra opts; SPI,COMPAT is one value
  JVM_OPTS=(
    -Xms"${WIKIFUSE_OPENSEARCH_HEAP:-512m}" -Xmx"${WIKIFUSE_OPENSEARCH_HEAP:-512m}"
    -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+ShowCodeDetailsInExceptionMessages
    -Dfile.encoding=UTF-8 -Djava.locale.providers=SPI,COMPAT -Djava.io.tmpdir="$STATE/tmp"
    -Dio.netty.noUnsafe=true -Dio.netty.noKeySetOptimization=true -Dio.netty.recycler.maxCapacityPerThread=0
    -Dlog4j2.disable.jmx=true -Djna.nosys=true
    -Dwikifuse.opensearch.logs="$STATE/logs"
    ${WIKIFUSE_OPENSEARCH_JAVA_OPTS:-}
  )
  say "starting on http://127.0.0.1:$HTTP_PORT (transport $TRANSPORT_PORT), log: $LOG"
  # setsid: own session, so a Ctrl-C or the end of the calling shell/CI step does not kill it;
  # in a non-interactive shell setsid and nohup exec in place, so $! is the java pid.
  (cd "$STATE" && exec setsid nohup "$JAVA" "${JVM_OPTS[@]}" \
      -cp "$JAR:$PROJECT/target/lib/*" dev.wikifuse.OpenSearchLauncher \
      path.home="$STATE" path.data="$STATE/data" path.logs="$STATE/logs" \
      http.port="$HTTP_PORT" transport.port="$TRANSPORT_PORT" \
      </dev/null >"$STATE/logs/stdout.log" 2>&1 9>&-) &
  echo $! >"$PID_FILE"
fi

# --- wait until the cluster is at least yellow ---------------------------------------------------
URL="http://127.0.0.1:$HTTP_PORT"
deadline=$((SECONDS + TIMEOUT))
until http_get "$URL/_cluster/health?wait_for_status=yellow&timeout=5s" >/dev/null; do
  if ! node_pid >/dev/null; then
    say "the node exited during startup; last log lines:"
    tail -n 40 "$LOG" "$STATE/logs/stdout.log" >&2 2>/dev/null || true
    rm -f "$PID_FILE"
    exit 1
  fi
  if ((SECONDS >= deadline)); then
    say "not healthy after ${TIMEOUT}s; last log lines:"
    tail -n 40 "$LOG" "$STATE/logs/stdout.log" >&2 2>/dev/null || true
    exit 1
  fi
  sleep 1
done

# --- publish the URL -----------------------------------------------------------------------------
tmp="$ENV_FILE.tmp.$$"
{ if [[ -f "$ENV_FILE" ]]; then grep -v '^WIKIFUSE_OPENSEARCH_URL=' "$ENV_FILE" || true; fi
  echo "WIKIFUSE_OPENSEARCH_URL=$URL"; } >"$tmp"
mv "$tmp" "$ENV_FILE"
say "ready: $URL (pid $(cat "$PID_FILE"))"
echo "$URL"
