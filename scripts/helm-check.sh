#!/usr/bin/env bash
# Lints the Helm chart and validates every manifest it renders against the
# Kubernetes JSON schemas, offline:
#   1. helm lint --strict, with the default values, ci/lint-values.yaml, ci/cluster-values.yaml
#      (those of make test-k8s) and ci/scale-values.yaml (make test-k8s-scale's)
#      (values.schema.json rejects unknown or mistyped values);
#   2. helm template (hooks and tests included) | kubeconform -strict, for both
#      value sets, against Kubernetes 1.27 (the chart's floor) and 1.37;
#   3. a few values the chart must refuse, and a few things it must render.
# Provisions, only when missing: pinned helm and kubeconform into .tools/bin
# (go install through the Go module proxy), and the schemas into
# .tools/kubernetes-json-schema from the PyPI package kubernetes-validate
# (docs/decisions/0003-helm-chart.md says why).
set -euo pipefail
cd "$(dirname "$0")/.."

HELM_VERSION=v3.22.0
# The Kubernetes version helm assumes when none is given: helm's Makefile
# derives it from the k8s.io/client-go in its go.mod (v0.37 -> 1.37); a plain
# `go install` would leave it at 1.20.
HELM_K8S_MINOR=37
KUBECONFORM_VERSION=v0.8.0
SCHEMAS_PACKAGE=kubernetes-validate==1.37.0
SCHEMAS_SHA256=85136d018a27b50ec7fc049d902bfa5193f5976807e6c0f408e3ab6fe078cad9
KUBE_VERSIONS=(1.27.0 1.37.0)

CHART=charts/web-access
TOOLS=$PWD/.tools
BIN=$TOOLS/bin
SCHEMAS=$TOOLS/kubernetes-json-schema
HELM=$BIN/helm
KUBECONFORM=$BIN/kubeconform
mkdir -p "$BIN"

go_install() { # <package@version> <ldflags>
  command -v go >/dev/null || { echo "helm-check: Go is needed to install $1 (Go >= 1.26)" >&2; exit 1; }
  echo "helm-check: installing $1 (go install through the module proxy; a few minutes on 2 cores)" >&2
  local start=$SECONDS
  GOBIN=$BIN GOFLAGS=-buildvcs=false nice go install -ldflags "-s -w $2" "$1"
  echo "helm-check: installed $1 in $((SECONDS - start))s" >&2
}

if [ "$("$HELM" version --template '{{.Version}}' 2>/dev/null)" != "$HELM_VERSION" ]; then
  go_install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" "\
-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION \
-X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$HELM_K8S_MINOR \
-X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$HELM_K8S_MINOR"
fi
if [ "$("$KUBECONFORM" -v 2>/dev/null)" != "$KUBECONFORM_VERSION" ]; then
  go_install "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" "-X main.version=$KUBECONFORM_VERSION"
fi

# kubernetes-validate ships the schemas as "local-strict" JSON Schema 2020-12
# files whose $ids and $refs point at https://kubernetes.io/api/...; kubeconform
# would fetch those. Dropping the $id and making the $refs relative lets it
# resolve every reference to the _definitions.json beside each file.
if [ "$(cat "$SCHEMAS/.package" 2>/dev/null)" != "$SCHEMAS_PACKAGE ${KUBE_VERSIONS[*]}" ]; then
  echo "helm-check: extracting Kubernetes ${KUBE_VERSIONS[*]} schemas from PyPI $SCHEMAS_PACKAGE" >&2
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" "$SCHEMAS_PACKAGE"
  wheel=$(ls "$tmp"/*.whl)
  echo "$SCHEMAS_SHA256  $wheel" | sha256sum --check --quiet
  rm -rf "$SCHEMAS" && mkdir -p "$SCHEMAS"
  python3 - "$wheel" "$SCHEMAS" "${KUBE_VERSIONS[@]}" <<'PY'
import json, os, sys, zipfile
wheel, out, versions = sys.argv[1], sys.argv[2], sys.argv[3:]
prefix = "kubernetes_validate/kubernetes-json-schema/"
with zipfile.ZipFile(wheel) as z:
    for version in versions:
        folder = f"v{version}-local-strict/"
        names = [n for n in z.namelist() if n.startswith(prefix + folder) and n.endswith(".json")]
        if not names:
            sys.exit(f"no schemas for Kubernetes {version} in {wheel}")
        os.makedirs(os.path.join(out, folder))
        for name in names:
            doc = json.loads(z.read(name))
            doc.pop("$id", None)
            text = json.dumps(doc).replace('"/api/_definitions.json#', '"_definitions.json#')
            with open(os.path.join(out, name[len(prefix):]), "w") as f:
                f.write(text)
PY
  echo "$SCHEMAS_PACKAGE ${KUBE_VERSIONS[*]}" > "$SCHEMAS/.package"
fi

echo "== helm lint --strict" >&2
"$HELM" lint --strict "$CHART"
"$HELM" lint --strict -f "$CHART/ci/lint-values.yaml" "$CHART"
"$HELM" lint --strict -f "$CHART/ci/cluster-values.yaml" "$CHART"
"$HELM" lint --strict -f "$CHART/ci/scale-values.yaml" "$CHART"

echo "== helm template | kubeconform -strict (offline schemas)" >&2
# A kind without a schema is an error here (no -ignore-missing-schemas).
for version in "${KUBE_VERSIONS[@]}"; do
  for values in "$CHART/values.yaml" "$CHART/ci/lint-values.yaml" "$CHART/ci/cluster-values.yaml"; do
    echo "-- Kubernetes $version, $(basename "$values")" >&2
    "$HELM" template web-access "$CHART" --namespace web-access --kube-version "$version" -f "$values" |
      "$KUBECONFORM" -strict -summary -kubernetes-version "$version" \
        -schema-location "$SCHEMAS/{{ .NormalizedKubernetesVersion }}-local{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json"
  done
done

echo "== values the chart must refuse" >&2
refuse() { # <part of the expected error> <what it guards> <helm template args...>
  local expected=$1 what=$2 out
  shift 2
  if out=$("$HELM" template web-access "$CHART" "$@" 2>&1 >/dev/null); then
    echo "helm-check: FAIL: rendered although $what" >&2
    exit 1
  fi
  if ! grep -qF -- "$expected" <<<"$out"; then
    echo "helm-check: FAIL: refused $what, but not with \"$expected\":" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "refused: $what" >&2
}
refuse "additional properties 'replcas' not allowed" "a service key is misspelt" --set crawl.replcas=2
refuse "value must be one of" "the log level is unknown" --set logLevel=verbose
refuse "must exceed shutdownTimeoutSeconds" "the grace period is below the shutdown timeout" \
  --set crawl.terminationGracePeriodSeconds=5
refuse "ingress.enabled needs gateway.enabled" "the ingress has no gateway to route to" \
  --set ingress.enabled=true --set gateway.enabled=false
refuse "incompatible with Kubernetes" "Kubernetes is older than native gRPC probes" --kube-version 1.26.0
refuse "browserHost.httpPort is required" "browser-host has no CDP port" --set browserHost.httpPort=null
refuse "too long for a StatefulSet" "browser-host's pod names would not fit a label" \
  --set fullnameOverride=a-release-name-of-forty-characters-xxxxx
refuse "value must be one of" "the browser hosts' URL scheme is not ws or wss" \
  --set ingress.browserHosts.scheme=https
refuse "nats.user and nats.password go together" "NATS has a password and no user" --set nats.password=secret
refuse "nats.user and nats.password go together" "NATS has a user and no password" --set nats.user=wap
refuse "name the credentials one way" "NATS's credentials come both from values and a Secret" \
  --set nats.user=wap --set nats.existingSecret=nats-credentials

echo "== what the chart must render" >&2
# ci/lint-values.yaml: browser-host under an HPA of at most 4 pods, behind browsers.example.com.
rendered=$("$HELM" template web-access "$CHART" --namespace web-access -f "$CHART/ci/lint-values.yaml")
expect() { # <count> <fixed string> <what it shows>
  local seen
  seen=$(grep -cF -- "$2" <<<"$rendered" || true)
  if [ "$seen" != "$1" ]; then
    echo "helm-check: FAIL: $3: $1 lines with \"$2\" expected, $seen rendered" >&2
    exit 1
  fi
  echo "rendered: $3" >&2
}
expect 4 "statefulset.kubernetes.io/pod-name: web-access-browser-host-" "a Service per browser-host pod"
expect 4 '- host: "web-access-browser-host-' "an Ingress rule per browser-host pod"
expect 1 'value: "wss://$(POD_NAME).browsers.example.com"' "each host's CDP URL from its pod name"
expect 1 "name: wap_browser_sessions_busy_ratio" "the HPA on the busy ratio"
expect 1 "nginx.ingress.kubernetes.io/proxy-read-timeout: \"21600\"" "long WebSocket timeouts on the hosts' Ingress"
# The gateway's Ingress: the API, the console, its sign-in, replays and snapshots (ci/lint-values.yaml's host).
for prefix in /v1 /mcp /connect /console /oauth /.well-known /replay /snapshots; do
  expect 1 "- path: $prefix" "$prefix routed to the gateway"
done
# NetworkPolicies (the six services enabled there): gRPC from the release's pods only, HTTP from
# the ingress controller's namespace, metrics from the monitoring one (and the release's pods);
# out, DNS, Postgres and NATS, the services each dials, and the internet.
expect 6 "policyTypes: [Ingress, Egress]" "a NetworkPolicy per service, on what comes in and goes out"
expect 6 "cidr: 0.0.0.0/0" "the internet (no private or metadata address) for every service"
expect 4 "# The billing-ledger service it dials." "the ledger's gRPC for the gateway, crawl, the agent and browser-host"
expect 3 "# The browser-host service it dials." "the browser hosts for the gateway, crawl and the agent"
# A browser host, whose pages are anyone's, dials the ledger alone of the services.
policy=$(awk 'BEGIN { RS = "\n---\n" } /kind: NetworkPolicy/ && /name: web-access-browser-host\n/' <<<"$rendered")
if [ "$(grep -c "service it dials" <<<"$policy")" != 1 ] || ! grep -qF "# The billing-ledger service it dials." <<<"$policy"; then
  echo "helm-check: FAIL: browser-host's NetworkPolicy lets it dial other services than the ledger:" >&2
  echo "$policy" >&2
  exit 1
fi
echo "rendered: browser-host dials the ledger alone of the services" >&2
expect 6 "- port: grpc" "gRPC admitted on every service"
expect 2 "kubernetes.io/metadata.name: ingress-nginx" "the HTTP ports (gateway, browser-host) admitted from the ingress controller"
expect 2 "kubernetes.io/metadata.name: monitoring" "the metrics ports admitted from monitoring"
# ci/cluster-values.yaml (make test-k8s): the chart's own custom metrics API for the hosts' HPA.
rendered=$("$HELM" template web-access "$CHART" --namespace web-access -f "$CHART/ci/cluster-values.yaml")
expect 1 "name: v1beta2.custom.metrics.k8s.io" "the custom metrics API's APIService"
expect 1 "name: extension-apiserver-authentication-reader" "the metrics API reading the front proxy's CA, and nothing more"
expect 1 'value: "web-access-browser-host.web-access.svc.cluster.local"' "the metrics API finding the hosts by their DNS names"
expect 1 'services/gateway/dist/chart-test.js' "helm test running the services image"
# Credentials (docs/decisions/0035-service-credentials.md): SERVICE_TOKEN from the chart's Secret for the
# seven services and the test pod; NATS's user and password in NATS_URL, percent-encoded, in a Secret.
rendered=$("$HELM" template web-access "$CHART" --namespace web-access -f "$CHART/ci/cluster-values.yaml" \
  --set nats.url='nats://a:4222\, nats://b:4222' --set nats.user=wap --set-string nats.password='p@ss word/1+')
expect 8 "name: SERVICE_TOKEN" "SERVICE_TOKEN for every service and the test pod"
# The Secret's own name, then each reference to it.
expect 9 "name: web-access-service-token" "SERVICE_TOKEN from the chart's Secret"
expect 1 'NATS_URL: "nats://wap:p%40ss%20word%2F1%2B@a:4222,nats://wap:p%40ss%20word%2F1%2B@b:4222"' \
  "NATS's user and password in each server's URL, in a Secret"
expect 9 "name: web-access-nats" "NATS_URL from that Secret"
expect 0 'value: "nats://' "NATS_URL never a plain value there"

echo "helm-check: chart OK" >&2
