#!/usr/bin/env bash
# The binaries of a single-node Kubernetes, built from the Go module proxy and cached outside the
# clone, keyed by version (docs/cluster.md): kube-apiserver, kube-controller-manager,
# kube-scheduler, kubelet, kube-proxy and kubectl from k8s.io/kubernetes, etcd, CoreDNS, and
# kube-router (its NetworkPolicy firewall alone: docs/decisions/0030-network-policy-controller.md),
# and kwok (make test-k8s-scale's simulated nodes).
# About 14 minutes on 2 cores the first time; then nothing. Prints the cache's bin directory.
set -euo pipefail
K8S_VERSION=${K8S_VERSION:-v1.34.4}
ETCD_VERSION=${ETCD_VERSION:-v3.6.10}
COREDNS_VERSION=${COREDNS_VERSION:-v1.14.7}
KUBE_ROUTER_VERSION=${KUBE_ROUTER_VERSION:-v2.1.0}
KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
CACHE=${WAP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wap}/k8s
BIN="$CACHE/$K8S_VERSION-etcd$ETCD_VERSION-coredns$COREDNS_VERSION/bin"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false
mkdir -p "$BIN"
command -v go >/dev/null || { echo "cluster: Go (>= 1.24) is needed to build Kubernetes" >&2; exit 1; }

built() { for b in "$@"; do [ -x "$BIN/$b" ] || return 1; done; }

if ! built kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; then
  echo "cluster: building Kubernetes $K8S_VERSION (about 7 minutes on 2 cores the first time)" >&2
  start=$SECONDS
  mod=$(mktemp -d)
  minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
  staging="v0.${K8S_VERSION#v1.}"
  # k8s.io/kubernetes replaces its staging modules with ./staging/...: a module of our own requires it
  # and points each replace at the published module of the same release instead.
  gomod=$(cd "$mod" && go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | jq -r .GoMod)
  {
    echo "module wapk8s"
    echo "go 1.24"
    echo "require k8s.io/kubernetes $K8S_VERSION"
    sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/.*#\1#p' "$gomod" | while read -r m; do
      echo "replace $m => $m $staging"
    done
  } >"$mod/go.mod"
  cat >"$mod/tools.go" <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  (cd "$mod" && go mod tidy -e >/dev/null 2>&1 || true)
  ldflags=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  (cd "$mod" && go build -trimpath -ldflags "-s -w $ldflags" -o "$BIN/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy \
    k8s.io/kubernetes/cmd/kubectl)
  rm -rf "$mod"
  echo "cluster: Kubernetes built in $((SECONDS - start)) s" >&2
fi

if ! built etcd; then
  echo "cluster: building etcd $ETCD_VERSION" >&2
  mod=$(mktemp -d)
  printf 'module wapetcd\ngo 1.24\nrequire go.etcd.io/etcd/server/v3 %s\n' "$ETCD_VERSION" >"$mod/go.mod"
  printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' >"$mod/main.go"
  (cd "$mod" && go mod tidy >/dev/null && go build -trimpath -ldflags "-s -w" -o "$BIN/etcd" .)
  rm -rf "$mod"
fi

if ! built coredns; then
  echo "cluster: building CoreDNS $COREDNS_VERSION" >&2
  GOBIN="$BIN" go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
fi
# Keyed by a stamp beside it, so a new version is built without rebuilding Kubernetes.
if [ "$(cat "$BIN/kube-router.version" 2>/dev/null)" != "$KUBE_ROUTER_VERSION" ]; then
  echo "cluster: building kube-router $KUBE_ROUTER_VERSION" >&2
  start=$SECONDS
  GOBIN="$BIN" go install -trimpath \
    -ldflags "-s -w -X github.com/cloudnativelabs/kube-router/v2/pkg/version.Version=$KUBE_ROUTER_VERSION" \
    "github.com/cloudnativelabs/kube-router/v2/cmd/kube-router@$KUBE_ROUTER_VERSION"
  echo "$KUBE_ROUTER_VERSION" >"$BIN/kube-router.version"
  echo "cluster: kube-router built in $((SECONDS - start)) s" >&2
fi
# kwok, for make test-k8s-scale's simulated nodes, and the stages it plays them with (the node's
# start and heartbeat, a pod's start, end and deletion: its module's own, copied beside it).
if [ "$(cat "$BIN/kwok.version" 2>/dev/null)" != "$KWOK_VERSION" ]; then
  echo "cluster: building kwok $KWOK_VERSION" >&2
  start=$SECONDS
  GOBIN="$BIN" go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  stages=$(cd "$(mktemp -d)" && go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | jq -r .Dir)/kustomize/stage
  for f in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease pod/fast/pod-ready \
    pod/fast/pod-complete pod/fast/pod-delete; do
    echo "---"
    cat "$stages/$f.yaml"
  done >"$BIN/kwok-stages.yaml"
  echo "$KWOK_VERSION" >"$BIN/kwok.version"
  echo "cluster: kwok built in $((SECONDS - start)) s" >&2
fi
echo "$BIN"
