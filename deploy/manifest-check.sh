#!/usr/bin/env bash
# Validates deploy/kubernetes/queen.yaml offline against the Kubernetes
# JSON schemas, strict (unknown fields refused), with two validators:
# kubeconform (.cache/bin) over the schemas kubernetes-validate (PyPI)
# ships for each minor version, made standalone once into .cache/k8s-schemas,
# and kubernetes-validate itself. Then it checks what the schema
# cannot: the choices the broker needs (see the manifest's comments).
# It proves it can fail: broken copies of the manifest must be refused.
#
# Usage: bash deploy/manifest-check.sh   (deploy/check.sh installs the venv)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${DEPLOY_VENV:-$PWD/.cache/deploy-venv}
kv=$venv/bin/kubernetes-validate
K8S=${K8S_VERSION:-1.37.0}
manifest=deploy/kubernetes/queen.yaml
say() { echo "manifest-check: $*"; }
fail() { echo "manifest-check: FAIL: $*" >&2; exit 1; }
[ -x "$kv" ] || fail "no $kv: bash deploy/check.sh installs it"

kc=${KUBECONFORM:-$PWD/.cache/bin/kubeconform}
[ -x "$kc" ] || fail "no $kc: bash deploy/check.sh installs it"

# kubeconform wants standalone schemas; kubernetes-validate's refer to
# https://kubernetes.io/api/_definitions.json through their $id. A copy
# without $id, its refs made relative to the file, is standalone offline.
schemas=$PWD/.cache/k8s-schemas/v$K8S-standalone-strict
if [ ! -f "$schemas/.done" ]; then
	src=$("$venv/bin/python" -c 'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))')/kubernetes-json-schema/v$K8S-local-strict
	[ -d "$src" ] || fail "kubernetes-validate has no schemas for $K8S ($src)"
	rm -rf "$schemas"
	"$venv/bin/python" - "$src" "$schemas" <<'PY'
import json, os, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst)
def fix(o):
    if isinstance(o, dict):
        o.pop("$id", None)
        return {k: (v.replace("/api/_definitions.json#", "_definitions.json#") if k == "$ref" and isinstance(v, str) else fix(v)) for k, v in o.items()}
    return [fix(v) for v in o] if isinstance(o, list) else o
for f in os.listdir(src):
    if f.endswith(".json"):
        with open(os.path.join(dst, f), "w") as out:
            json.dump(fix(json.load(open(os.path.join(src, f)))), out)
open(os.path.join(dst, ".done"), "w").close()
PY
fi
validate() { # both validators, strict; quiet unless refused
	"$kc" -strict -summary=false -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$1" &&
		"$kv" --strict --quiet -k "$K8S" "$1"
}
validate "$manifest" || fail "$manifest does not validate against Kubernetes $K8S (strict)"
"$kc" -strict -summary -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$manifest" | sed 's/^/manifest-check: kubeconform: /'
say "$manifest: valid against the Kubernetes $K8S schemas, strict: kubeconform $(go version -m "$kc" | awk '$1 == "mod" {print $3}') and kubernetes-validate $("$kv" --version 2>&1 | tail -1)"

# What the schema allows but the cluster would not work without.
"$venv/bin/python" - "$manifest" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
by = {(d["kind"], d["metadata"]["name"]): d for d in docs}
def need(cond, what):
    if not cond:
        sys.exit("manifest-check: FAIL: " + what)
raft = by.get(("Service", "queen-raft"))
need(raft and raft["spec"].get("clusterIP") == "None", "the raft Service queen-raft is not headless")
need(raft["spec"].get("publishNotReadyAddresses") is True, "queen-raft does not publish not-ready addresses: peers could not resolve before ready")
need(("Service", "queen") in by, "no client Service queen")
sts = by.get(("StatefulSet", "queen"))
need(sts, "no StatefulSet queen")
s = sts["spec"]
need(s["serviceName"] == "queen-raft", "the StatefulSet's serviceName is not queen-raft")
need(s["replicas"] == 3 and s.get("podManagementPolicy") == "Parallel", "not 3 replicas started in Parallel")
need(s.get("volumeClaimTemplates"), "no volumeClaimTemplates")
pod = s["template"]["spec"]
c = pod["containers"][0]
env = {e["name"]: e for e in c["env"]}
names = [e["name"] for e in c["env"]]
need(env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name", "POD_NAME is not the pod's name")
need(names.index("POD_NAME") < names.index("QUEEN_RAFT_ADDRESS"), "POD_NAME comes after QUEEN_RAFT_ADDRESS: $(POD_NAME) would not expand")
need("QUEEN_RAFT_NODE_ID" not in env, "QUEEN_RAFT_NODE_ID is set: every pod would have the same id")
# Each pod's address, expanded as the kubelet does, is exactly one member's.
members = {}
for m in env["QUEEN_RAFT_MEMBERS"]["value"].split(","):
    i, a = m.split("=")
    members[a.replace("$(POD_NAMESPACE)", "ns")] = int(i)
ids = set()
for n in range(s["replicas"]):
    a = env["QUEEN_RAFT_ADDRESS"]["value"].replace("$(POD_NAME)", f"queen-{n}").replace("$(POD_NAMESPACE)", "ns")
    need(a.startswith(f"queen-{n}.queen-raft.ns.svc.cluster.local:"), f"pod {n}'s raft address {a} is not its stable name")
    need(a in members, f"pod queen-{n}'s address {a} is no member's: the broker would refuse to boot")
    ids.add(members[a])
need(len(ids) == s["replicas"], "two pods would share a node id")
need(c["readinessProbe"]["httpGet"]["path"] == "/health", "the readiness probe is not /health")
need("httpGet" not in c["livenessProbe"], "the liveness probe asks /health: it would kill a settling node")
pause = c.get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
need(pod.get("terminationGracePeriodSeconds", 30) > pause + int(env["QUEEN_SHUTDOWN_GRACE_MS"]["value"]) / 1000,
     "terminationGracePeriodSeconds does not exceed the preStop pause and QUEEN_SHUTDOWN_GRACE_MS: the drain would be cut")
sc = pod["securityContext"]
need(sc.get("runAsNonRoot") is True and sc.get("fsGroup") == 65532 and sc.get("runAsUser") == 65532, "not runAsNonRoot as 65532 with fsGroup 65532")
need(c.get("resources", {}).get("requests"), "no resource requests")
pdb = by.get(("PodDisruptionBudget", "queen"))
need(pdb and pdb["spec"].get("maxUnavailable") == 1, "no PodDisruptionBudget with maxUnavailable 1")
need(pdb["spec"]["selector"]["matchLabels"] == s["selector"]["matchLabels"], "the PodDisruptionBudget selects other pods")
print("manifest-check: headless raft Service publishing not-ready addresses, 3 pods in Parallel with one id each, probes, grace, non-root, PDB: as the broker needs")
PY

# The validator must refuse broken copies.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
broken() { # name sed-expression [kubeconform-only]
	local name=$1 expr=$2 only=${3:-}
	sed "$expr" "$manifest" >"$tmp/$name.yaml"
	cmp -s "$manifest" "$tmp/$name.yaml" && fail "the broken copy '$name' changed nothing: its sed no longer matches"
	if out=$("$kc" -strict -schema-location "$schemas/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$tmp/$name.yaml" 2>&1); then
		fail "kubeconform let the broken copy '$name' through"
	fi
	say "kubeconform refuses $name, as it should: ${out##*: }"
	[ -z "$only" ] || return 0
	if out=$("$kv" --strict --quiet -k "$K8S" "$tmp/$name.yaml" 2>&1); then
		fail "kubernetes-validate let the broken copy '$name' through"
	fi
	say "kubernetes-validate refuses $name, as it should: ${out##*: }"
}
broken replicas-string 's/^  replicas: 3$/  replicas: "three"/'
broken unknown-field 's/^  podManagementPolicy: Parallel$/  podManagementPolicy: Parallel\n  podManagmentPolicy: Parallel/'
broken probe-port-object 's/^              path: \/health$/              path: {name: health}/'
# kubernetes-validate only warns of a kind it has no schema for.
broken unknown-kind 's/^kind: PodDisruptionBudget$/kind: PodDisruptionBudgit/' kubeconform-only
say ok
