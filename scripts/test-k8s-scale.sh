#!/usr/bin/env bash
# `make test-k8s-scale`: the chart's browser hosts on 100 simulated nodes (kwok) beside the real
# node of `make cluster` (docs/cluster.md, "make test-k8s-scale"): starts kwok, which plays the
# simulated nodes' kubelets and their pods' lifecycles, then e2e/src/k8s/scale.k8s.ts creates the
# nodes in five zones and drives the browser hosts' HPA, spread and disruption budget. Simulated
# pods run no container, so no image is needed. Needs root and a running cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
[ "$(id -u)" = 0 ] || { echo "test-k8s-scale: run as root (the cluster's files are root's)" >&2; exit 1; }
eval "$(scripts/cluster.sh env | sed 's/^/export /')"
bin=$(scripts/k8s-build.sh)
export PATH="$PWD/.tools/bin:$bin:$PATH"
kubectl get --raw /readyz >/dev/null 2>&1 || { echo "test-k8s-scale: no cluster answers; run make cluster first" >&2; exit 1; }
scripts/helm-check.sh >/dev/null
state=$(dirname "$KUBECONFIG")
# kwok manages only the nodes annotated as its own; their pods get addresses nothing routes to.
setsid "$bin/kwok" --kubeconfig="$KUBECONFIG" --config="$bin/kwok-stages.yaml" --manage-all-nodes=false \
  --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake --cidr=10.250.0.0/16 --node-ip=10.250.255.254 \
  --server-address=127.0.0.1:10247 --node-lease-duration-seconds=40 >>"$state/logs/kwok.log" 2>&1 </dev/null &
kwok=$!
trap 'kill "$kwok" 2>/dev/null || true; wait "$kwok" 2>/dev/null || true' EXIT
status=0
node --test --enable-source-maps --disable-warning=ExperimentalWarning --test-reporter=spec \
  --test-timeout=2400000 e2e/dist/k8s/scale.k8s.js || status=$?
echo "== make test-k8s-scale took $((SECONDS - started))s"
exit "$status"
