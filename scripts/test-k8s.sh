#!/usr/bin/env bash
# `make test-k8s`: the Helm chart on the local cluster of `make cluster` (docs/cluster.md):
# builds the images (scripts/images.sh), imports them into the cluster's containerd, then
# e2e/src/k8s/chart.k8s.ts installs the chart with charts/web-access/ci/cluster-values.yaml
# and tries it as a user would. Needs root (the cluster's containerd) and a running cluster.
#   WAP_IMAGES_BUILT=1   use the images already in .data/images instead of building them
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
[ "$(id -u)" = 0 ] || { echo "test-k8s: run as root (the cluster's containerd is root's)" >&2; exit 1; }
eval "$(scripts/cluster.sh env | sed 's/^/export /')"
export PATH="$PWD/.tools/bin:$(scripts/k8s-build.sh):$PATH"
kubectl get --raw /readyz >/dev/null 2>&1 || { echo "test-k8s: no cluster answers; run make cluster first" >&2; exit 1; }
# helm and kubeconform, and the chart lints and validates (test values included).
scripts/helm-check.sh >/dev/null
if [ -z "${WAP_IMAGES_BUILT:-}" ]; then scripts/images.sh; fi
for image in .data/images/*.tar; do
  echo "test-k8s: importing $image" >&2
  scripts/cluster.sh import "$image"
done
echo "test-k8s: images ready after $((SECONDS - started))s" >&2
node --test --enable-source-maps --disable-warning=ExperimentalWarning --test-reporter=spec \
  --test-timeout=2400000 e2e/dist/k8s/chart.k8s.js
echo "== make test-k8s took $((SECONDS - started))s"
