#!/usr/bin/env bash
# Lints and renders the Helm chart in helm/wikifuse, then checks the rendered manifests.
#
#   infra/helm-check.sh
#
# Needs a `helm` binary: the one on PATH, else ${WIKIFUSE_TOOLS_DIR:-<repo>/.tools}/bin/helm, else
# one built here from the Go module proxy with the machine's Go (about 3 minutes on 2 cores with
# cold module and build caches, seconds once they are warm). No Kubernetes cluster is needed.
#
# Environment:
#   HELM_VERSION        helm module version to build (default v3.19.0; its go.mod needs Go >= 1.24)
#   KUBE_VERSION        Kubernetes version to lint and render for (default 1.34.0, the client-go
#                       minor helm v3.19 is built against)
#   WIKIFUSE_TOOLS_DIR  where a built helm goes (default <repo>/.tools)
#   HELM                use this helm binary, no lookup or build
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

CHART=helm/wikifuse
HELM_VERSION="${HELM_VERSION:-v3.19.0}"
KUBE_VERSION="${KUBE_VERSION:-1.34.0}"
TOOLS_DIR="${WIKIFUSE_TOOLS_DIR:-$ROOT/.tools}"

log() { printf '==> %s\n' "$*" >&2; }

build_helm() {
    if ! command -v go >/dev/null 2>&1; then
        log "no helm on PATH or in $TOOLS_DIR/bin, and no Go to build it with"
        exit 1
    fi
    local major minor
    major="$(cut -d. -f1 <<<"${KUBE_VERSION}")"
    minor="$(cut -d. -f2 <<<"${KUBE_VERSION}")"
    # The same -X flags as helm's own Makefile: the version `helm version` prints, and the default
    # Kubernetes version for .Capabilities and lint's deprecation checks (otherwise v1.20).
    local ldflags="-s -w"
    ldflags+=" -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION}"
    ldflags+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=${major}"
    ldflags+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=${minor}"
    ldflags+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=${major}"
    ldflags+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=${minor}"

    log "building helm ${HELM_VERSION} with $(go version) into $TOOLS_DIR/bin"
    mkdir -p "$TOOLS_DIR/bin"
    local start=$SECONDS
    GOBIN="$TOOLS_DIR/bin" CGO_ENABLED=0 \
        go install -trimpath -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
    log "helm built in $((SECONDS - start)) s"
}

find_helm() {
    if [[ -n "${HELM:-}" ]]; then
        printf '%s\n' "$HELM"
    elif command -v helm >/dev/null 2>&1; then
        command -v helm
    else
        [[ -x "$TOOLS_DIR/bin/helm" ]] || build_helm
        printf '%s\n' "$TOOLS_DIR/bin/helm"
    fi
}

# A Python with PyYAML: the project's virtualenv if it has one, else python3.
find_python() {
    local candidate
    for candidate in "$ROOT/.venv/bin/python" python3; do
        if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import yaml' 2>/dev/null; then
            printf '%s\n' "$candidate"
            return
        fi
    done
    log "no Python with PyYAML (python3 -m pip install pyyaml, or make install)"
    exit 1
}

HELM="$(find_helm)"
PYTHON="$(find_python)"
log "using $HELM ($("$HELM" version --short 2>/dev/null || echo unknown)), Kubernetes ${KUBE_VERSION}"

# Everything optional switched on, connections from Secrets the chart does not own (one shared,
# one for Postgres alone, as the CloudNativePG operator makes), a GPU pool for the embed workers.
FULL_SET=(
    --set ingress.enabled=true
    --set ingress.className=nginx
    --set "ingress.tls[0].secretName=wikifuse-tls"
    --set "ingress.tls[0].hosts[0]=wikifuse.example.com"
    --set autoscaling.enabled=true
    --set podDisruptionBudget.enabled=true
    --set existingSecret=wikifuse-connections
    --set externalDatabase.existingSecret=wikifuse-pg-app
    --set externalDatabase.existingSecretKey=uri
    --set-string "workers.embed.nodeSelector.nvidia\.com/gpu\.present=true"
    --set "workers.embed.tolerations[0].key=nvidia.com/gpu"
    --set "workers.embed.tolerations[0].operator=Exists"
    --set "workers.embed.tolerations[0].effect=NoSchedule"
)

# Reads rendered manifests on stdin; checks structure and cross-references, prints kind counts,
# and fails unless the counts equal the expected ones (KIND=N ..., kinds not named must be absent).
CHECK_PY="$(cat <<'PY'
import sys
from collections import Counter

import yaml

label, *expected_args = sys.argv[1:]
expected = {k: int(v) for k, v in (arg.split("=") for arg in expected_args)}
docs = [d for d in yaml.safe_load_all(sys.stdin) if d is not None]
errors = []

def err(msg):
    errors.append(msg)

kinds = Counter(d.get("kind") for d in docs)
seen = set()
for d in docs:
    for key in ("apiVersion", "kind", "metadata"):
        if key not in d:
            err(f"document without {key}: {str(d)[:80]}")
    name = d.get("metadata", {}).get("name", "")
    if not name or len(name) > 63:
        err(f"{d.get('kind')} has a bad name {name!r}")
    if (d.get("kind"), name) in seen:
        err(f"duplicate {d.get('kind')}/{name}")
    seen.add((d.get("kind"), name))
    labels = d.get("metadata", {}).get("labels", {})
    for key in ("app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/managed-by"):
        if key not in labels:
            err(f"{d['kind']}/{name} lacks label {key}")

by_kind = lambda kind: [d for d in docs if d.get("kind") == kind]
secrets = {d["metadata"]["name"]: d for d in by_kind("Secret")}
config_maps = {d["metadata"]["name"] for d in by_kind("ConfigMap")}
deployments = {d["metadata"]["name"]: d for d in by_kind("Deployment")}
hpa_targets = {d["spec"]["scaleTargetRef"]["name"] for d in by_kind("HorizontalPodAutoscaler")}

def pod_specs():
    for d in deployments.values():
        yield d["metadata"]["name"], d["spec"]["template"]["metadata"], d["spec"]["template"]["spec"]
    for d in by_kind("Pod"):
        yield d["metadata"]["name"], d["metadata"], d["spec"]

for name, d in deployments.items():
    selector = d["spec"]["selector"]["matchLabels"]
    template_labels = d["spec"]["template"]["metadata"]["labels"]
    if any(template_labels.get(k) != v for k, v in selector.items()):
        err(f"Deployment/{name}: selector {selector} does not match its pod labels")
    if name in hpa_targets and "replicas" in d["spec"]:
        err(f"Deployment/{name} sets replicas although an HPA scales it")
    if name not in hpa_targets and "replicas" not in d["spec"]:
        err(f"Deployment/{name} has no replicas and no HPA")
    annotations = d["spec"]["template"]["metadata"].get("annotations", {})
    if "checksum/config" not in annotations:
        err(f"Deployment/{name} lacks the checksum/config annotation")
    if secrets and "checksum/secret" not in annotations:
        err(f"Deployment/{name} lacks the checksum/secret annotation")

for name, meta, spec in pod_specs():
    if not spec.get("securityContext", {}).get("runAsNonRoot"):
        err(f"{name}: pod securityContext.runAsNonRoot is not true")
    for c in spec["containers"]:
        image = c.get("image", "")
        if not image or image.endswith(":") or ("@" not in image and ":" not in image.rsplit("/", 1)[-1]):
            err(f"{name}/{c['name']}: image {image!r} has no tag or digest")
        sc = c.get("securityContext", {})
        if sc.get("allowPrivilegeEscalation") is not False:
            err(f"{name}/{c['name']}: allowPrivilegeEscalation is not false")
        if "resources" not in c:
            err(f"{name}/{c['name']}: no resources")
        for source in c.get("envFrom", []):
            ref = source.get("configMapRef", {}).get("name")
            if ref and ref not in config_maps:
                err(f"{name}/{c['name']}: envFrom ConfigMap {ref} is not rendered")
        for env in c.get("env", []):
            ref = env.get("valueFrom", {}).get("secretKeyRef")
            if ref and ref["name"] in secrets:
                if ref["key"] not in secrets[ref["name"]].get("data", {}):
                    err(f"{name}/{c['name']}: Secret {ref['name']} has no key {ref['key']}")

for svc in by_kind("Service"):
    selector = svc["spec"]["selector"]
    if not any(all(d["spec"]["template"]["metadata"]["labels"].get(k) == v for k, v in selector.items())
               for d in deployments.values()):
        err(f"Service/{svc['metadata']['name']} selects no Deployment")
for target in hpa_targets:
    if target not in deployments:
        err(f"HPA targets missing Deployment/{target}")
services = {s["metadata"]["name"] for s in by_kind("Service")}
for ing in by_kind("Ingress"):
    for rule in ing["spec"]["rules"]:
        for path in rule["http"]["paths"]:
            if path["backend"]["service"]["name"] not in services:
                err(f"Ingress/{ing['metadata']['name']} points at a missing Service")

if dict(kinds) != expected:
    err(f"kinds {dict(sorted(kinds.items()))} != expected {dict(sorted(expected.items()))}")

summary = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
print(f"    {label}: {len(docs)} documents ({summary})")
for name, d in sorted(deployments.items()):
    c = d["spec"]["template"]["spec"]["containers"][0]
    print(f"      Deployment/{name}: replicas={d['spec'].get('replicas', 'HPA')} "
          f"command={' '.join(c['command'])}")
if errors:
    print("\n".join(f"    ERROR: {e}" for e in errors))
    sys.exit(1)
PY
)"
check_manifests() {
    "$PYTHON" -c "$CHECK_PY" "$@"
}

log "helm lint --strict (defaults)"
"$HELM" lint "$CHART" --strict --kube-version "$KUBE_VERSION"

log "helm lint --strict (ingress, hpa, pdb, existingSecret, GPU embed pool)"
"$HELM" lint "$CHART" --strict --kube-version "$KUBE_VERSION" "${FULL_SET[@]}"

log "helm template (defaults)"
"$HELM" template wikifuse "$CHART" --kube-version "$KUBE_VERSION" |
    check_manifests defaults ServiceAccount=1 Secret=1 ConfigMap=1 Service=1 Deployment=4 Pod=1

log "helm template (ingress, hpa, pdb, existingSecret, GPU embed pool)"
"$HELM" template wikifuse "$CHART" --kube-version "$KUBE_VERSION" "${FULL_SET[@]}" |
    check_manifests full ServiceAccount=1 ConfigMap=1 Service=1 Deployment=4 Pod=1 \
        HorizontalPodAutoscaler=1 PodDisruptionBudget=1 Ingress=1

log "values.schema.json rejects a bad value"
if "$HELM" template wikifuse "$CHART" --kube-version "$KUBE_VERSION" \
    --set workers.embed.replicas=two >/dev/null 2>&1; then
    log "the chart accepted workers.embed.replicas=two"
    exit 1
fi

log "helm chart OK"
