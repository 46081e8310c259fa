#!/usr/bin/env bash
# A single-node Kubernetes on this machine, for `make test-k8s` (docs/cluster.md):
#   cluster.sh up       build what is missing (cached outside the clone), start etcd, the control
#                       plane, containerd, kubelet, kube-proxy, kube-router's NetworkPolicy firewall
#                       and CoreDNS; wait for the node to be Ready
#   cluster.sh down     stop all of it and remove every trace: processes, mounts, network namespaces,
#                       iptables chains and ipsets, the bridge; IP forwarding back as it was
#   cluster.sh env      print KUBECONFIG=... for the running cluster, its containerd's socket
#                       (CLUSTER_CONTAINERD_SOCK), and CLUSTER_DATABASE_ADMIN_URL and CLUSTER_NATS_URL
#                       of its Postgres and NATS
#   cluster.sh import F import an image tarball (scripts/images.sh) into the cluster's containerd
#   cluster.sh traces   list whatever of the cluster is left on the machine; exit 1 if anything is
# Needs root. State under /var/lib/wap-cluster; traffic stays on the bridge, pods and loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STATE=${WAP_CLUSTER_DIR:-/var/lib/wap-cluster}
RUN=/run/wap-cluster
BRIDGE=wapbr0
NODE_IP=10.244.0.1
POD_CIDR=10.244.0.0/24
SERVICE_CIDR=10.96.0.0/16
API_SERVICE_IP=10.96.0.1
DNS_IP=10.96.0.10
NODE=wap-node
SOCK=$RUN/containerd.sock
CNI_BIN=/usr/lib/cni
PIDS=$RUN/pids
# Postgres and NATS for what runs in the cluster: the host's own, on the bridge address (the
# cluster's Services `postgres` and `nats` point there), data under the state directory.
infra() { WAP_DATA_DIR=$STATE/infra WAP_LISTEN=$NODE_IP WAP_PG_PORT=5432 WAP_NATS_PORT=4222 WAP_NATS_MON_PORT=8222 scripts/infra.sh "$@"; }

log() { echo "cluster: $*" >&2; }

install_packages() {
  local missing=()
  command -v containerd >/dev/null || missing+=(containerd)
  command -v runc >/dev/null || missing+=(runc)
  [ -x "$CNI_BIN/bridge" ] || missing+=(containernetworking-plugins)
  command -v iptables >/dev/null || missing+=(iptables)
  command -v conntrack >/dev/null || missing+=(conntrack)
  command -v ipset >/dev/null || missing+=(ipset)
  command -v openssl >/dev/null || missing+=(openssl)
  command -v jq >/dev/null || missing+=(jq)
  command -v gcc >/dev/null || missing+=(gcc libc6-dev)
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing ${missing[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# A certificate signed by the cluster's CA: name, subject, and extensions (SANs, usage).
cert() {
  local name=$1 subject=$2 ext=$3
  [ -f "$STATE/pki/$name.crt" ] && return 0
  openssl genrsa -out "$STATE/pki/$name.key" 2048 2>/dev/null
  openssl req -new -key "$STATE/pki/$name.key" -subj "$subject" -out "$STATE/pki/$name.csr" 2>/dev/null
  printf '%s\n' "$ext" >"$STATE/pki/$name.ext"
  openssl x509 -req -in "$STATE/pki/$name.csr" -CA "$STATE/pki/ca.crt" -CAkey "$STATE/pki/ca.key" -CAcreateserial \
    -days 30 -sha256 -extfile "$STATE/pki/$name.ext" -out "$STATE/pki/$name.crt" 2>/dev/null
}

kubeconfig() {
  local name=$1 user=$2
  cat >"$STATE/$name.kubeconfig" <<YAML
apiVersion: v1
kind: Config
clusters:
  - name: wap
    cluster:
      certificate-authority: $STATE/pki/ca.crt
      server: https://$NODE_IP:6443
users:
  - name: $user
    user:
      client-certificate: $STATE/pki/$name.crt
      client-key: $STATE/pki/$name.key
contexts:
  - name: wap
    context: { cluster: wap, user: $user }
current-context: wap
YAML
}

pki() {
  mkdir -p "$STATE/pki"
  if [ ! -f "$STATE/pki/ca.crt" ]; then
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$STATE/pki/ca.key" -out "$STATE/pki/ca.crt" -days 30 \
      -subj "/CN=wap-cluster-ca" 2>/dev/null
  fi
  local client="basicConstraints=CA:FALSE
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=clientAuth"
  cert apiserver "/CN=kube-apiserver" "basicConstraints=CA:FALSE
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=IP:$NODE_IP,IP:$API_SERVICE_IP,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost"
  cert kubelet "/CN=$NODE" "basicConstraints=CA:FALSE
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=IP:$NODE_IP,DNS:$NODE"
  cert admin "/O=system:masters/CN=wap-admin" "$client"
  cert apiserver-kubelet "/O=system:masters/CN=kube-apiserver-kubelet-client" "$client"
  cert controller-manager "/CN=system:kube-controller-manager" "$client"
  cert scheduler "/CN=system:kube-scheduler" "$client"
  cert node "/O=system:nodes/CN=system:node:$NODE" "$client"
  cert proxy "/CN=system:kube-proxy" "$client"
  cert kube-router "/CN=system:kube-router" "$client"
  # What the API server presents to aggregated APIs (the custom metrics API of the HPA).
  cert front-proxy-client "/CN=front-proxy-client" "$client"
  [ -f "$STATE/pki/sa.key" ] || openssl genrsa -out "$STATE/pki/sa.key" 2048 2>/dev/null
  openssl rsa -in "$STATE/pki/sa.key" -pubout -out "$STATE/pki/sa.pub" 2>/dev/null
  kubeconfig admin wap-admin
  kubeconfig controller-manager system:kube-controller-manager
  kubeconfig scheduler system:kube-scheduler
  kubeconfig node "system:node:$NODE"
  kubeconfig proxy system:kube-proxy
  kubeconfig kube-router system:kube-router
}

# Runs a daemon in the background, its output in $STATE/logs, its pid in $PIDS.
daemon() {
  local name=$1; shift
  mkdir -p "$STATE/logs" "$PIDS"
  setsid "$@" >>"$STATE/logs/$name.log" 2>&1 < /dev/null &
  echo $! >"$PIDS/$name"
}

wait_for() {
  local what=$1 tries=$2; shift 2
  for _ in $(seq "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 1; done
  log "timed out waiting for $what (logs: $STATE/logs)"; return 1
}

# The pause image: a static binary of a few lines that sleeps until told to stop.
pause_image() {
  local dir=$STATE/images/pause
  [ -f "$STATE/images/pause.tar" ] && return 0
  mkdir -p "$dir"
  cat >"$dir/pause.c" <<'C'
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static void quit(int s) { (void)s; exit(0); }
static void reap(int s) { (void)s; while (waitpid(-1, NULL, WNOHANG) > 0) {} }
int main(void) {
  signal(SIGINT, quit); signal(SIGTERM, quit); signal(SIGCHLD, reap);
  for (;;) pause();
}
C
  gcc -Os -static -o "$dir/pause" "$dir/pause.c"
  strip "$dir/pause"
  single_binary_image pause "$dir/pause" /pause 65535 "registry.k8s.io/pause:3.10"
}

# An OCI image of one static binary (and /etc/passwd for its user), for ctr to import.
single_binary_image() {
  local name=$1 bin=$2 path=$3 uid=$4 ref=$5
  local work; work=$(mktemp -d)
  umoci init --layout "$work/oci"
  umoci new --image "$work/oci:$name"
  umoci unpack --image "$work/oci:$name" "$work/bundle" >/dev/null
  install -D -m 0755 "$bin" "$work/bundle/rootfs$path"
  mkdir -p "$work/bundle/rootfs/etc"
  echo "nonroot:x:$uid:$uid::/:/sbin/nologin" >"$work/bundle/rootfs/etc/passwd"
  umoci repack --no-history --image "$work/oci:$name" "$work/bundle" 2>/dev/null
  umoci config --no-history --image "$work/oci:$name" --config.user "$uid:$uid" --config.entrypoint "$path"
  jq --arg name "$ref" '.manifests[0].annotations["org.opencontainers.image.ref.name"] = $name' "$work/oci/index.json" >"$work/index.json"
  mv "$work/index.json" "$work/oci/index.json"
  tar -C "$work/oci" -cf "$STATE/images/$name.tar" .
  rm -rf "$work"
}

import_image() {
  ctr --address "$SOCK" -n k8s.io images import --no-unpack=false "$1" >/dev/null
}

up() {
  [ "$(id -u)" = 0 ] || { log "run as root"; exit 1; }
  if [ -f "$PIDS/kubelet" ] && kill -0 "$(cat "$PIDS/kubelet")" 2>/dev/null; then log "already up"; return 0; fi
  install_packages
  command -v umoci >/dev/null || { apt-get install -y -qq --no-install-recommends umoci >/dev/null; }
  local bin; bin=$(scripts/k8s-build.sh)
  export PATH="$bin:$PATH"
  mkdir -p "$STATE" "$RUN" "$PIDS" "$STATE/images"
  sysctl -n net.ipv4.ip_forward >"$STATE/ip_forward.before"
  modprobe br_netfilter 2>/dev/null || true
  modprobe overlay 2>/dev/null || true
  pki

  # The bridge first: the API server and the kubelet live on its address.
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
    ip addr add "$NODE_IP/24" dev "$BRIDGE"
  fi
  ip link set "$BRIDGE" up
  log "Postgres and NATS on $NODE_IP"
  infra start

  log "etcd"
  daemon etcd "$bin/etcd" --name wap --data-dir "$STATE/etcd" --listen-client-urls http://127.0.0.1:2379 \
    --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:2380 \
    --initial-advertise-peer-urls http://127.0.0.1:2380 --initial-cluster wap=http://127.0.0.1:2380 \
    --listen-metrics-urls http://127.0.0.1:2381
  wait_for etcd 30 curl -fsS http://127.0.0.1:2381/health

  log "kube-apiserver"
  daemon kube-apiserver "$bin/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
    --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port=6443 \
    --service-cluster-ip-range="$SERVICE_CIDR" --allow-privileged=true \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --client-ca-file="$STATE/pki/ca.crt" --tls-cert-file="$STATE/pki/apiserver.crt" \
    --tls-private-key-file="$STATE/pki/apiserver.key" \
    --kubelet-client-certificate="$STATE/pki/apiserver-kubelet.crt" \
    --kubelet-client-key="$STATE/pki/apiserver-kubelet.key" --kubelet-preferred-address-types=InternalIP \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local \
    --service-account-key-file="$STATE/pki/sa.pub" --service-account-signing-key-file="$STATE/pki/sa.key" \
    --requestheader-client-ca-file="$STATE/pki/ca.crt" --requestheader-allowed-names=front-proxy-client \
    --requestheader-username-headers=X-Remote-User --requestheader-group-headers=X-Remote-Group \
    --requestheader-extra-headers-prefix=X-Remote-Extra- --proxy-client-cert-file="$STATE/pki/front-proxy-client.crt" \
    --proxy-client-key-file="$STATE/pki/front-proxy-client.key" --enable-aggregator-routing=true \
    --profiling=false
  export KUBECONFIG=$STATE/admin.kubeconfig
  wait_for kube-apiserver 90 kubectl get --raw /readyz

  log "kube-controller-manager, kube-scheduler"
  daemon kube-controller-manager "$bin/kube-controller-manager" --kubeconfig="$STATE/controller-manager.kubeconfig" \
    --authentication-kubeconfig="$STATE/controller-manager.kubeconfig" \
    --authorization-kubeconfig="$STATE/controller-manager.kubeconfig" \
    --leader-elect=false --use-service-account-credentials=true \
    --service-account-private-key-file="$STATE/pki/sa.key" --root-ca-file="$STATE/pki/ca.crt" \
    --cluster-signing-cert-file="$STATE/pki/ca.crt" --cluster-signing-key-file="$STATE/pki/ca.key" \
    --service-cluster-ip-range="$SERVICE_CIDR" --bind-address=127.0.0.1 --profiling=false
  daemon kube-scheduler "$bin/kube-scheduler" --kubeconfig="$STATE/scheduler.kubeconfig" \
    --authentication-kubeconfig="$STATE/scheduler.kubeconfig" --authorization-kubeconfig="$STATE/scheduler.kubeconfig" \
    --leader-elect=false --bind-address=127.0.0.1 --profiling=false

  log "containerd"
  mkdir -p "$STATE/cni" "$STATE/containerd"
  cat >"$STATE/cni/10-wap.conflist" <<JSON
{
  "cniVersion": "1.0.0",
  "name": "wap",
  "plugins": [
    { "type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
      "ipam": { "type": "host-local", "ranges": [[{ "subnet": "$POD_CIDR", "gateway": "$NODE_IP" }]],
                "routes": [{ "dst": "0.0.0.0/0" }], "dataDir": "$STATE/cni/ipam" } },
    { "type": "portmap", "capabilities": { "portMappings": true } },
    { "type": "loopback" }
  ]
}
JSON
  cat >"$STATE/containerd.toml" <<TOML
version = 2
root = "$STATE/containerd"
state = "$RUN/containerd"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.k8s.io/pause:3.10"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "$CNI_BIN"
    conf_dir = "$STATE/cni"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
TOML
  daemon containerd containerd --config "$STATE/containerd.toml"
  wait_for containerd 30 ctr --address "$SOCK" version
  pause_image
  import_image "$STATE/images/pause.tar"

  log "kubelet, kube-proxy"
  cat >"$STATE/kubelet.yaml" <<YAML
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
failSwapOn: false
containerRuntimeEndpoint: unix://$SOCK
address: $NODE_IP
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: true }
  x509: { clientCAFile: $STATE/pki/ca.crt }
authorization: { mode: Webhook }
clusterDomain: cluster.local
clusterDNS: [$DNS_IP]
tlsCertFile: $STATE/pki/kubelet.crt
tlsPrivateKeyFile: $STATE/pki/kubelet.key
resolvConf: /etc/resolv.conf
evictionHard: { memory.available: 100Mi, nodefs.available: 2%, imagefs.available: 2% }
imageGCHighThresholdPercent: 99
imageGCLowThresholdPercent: 98
serializeImagePulls: false
YAML
  daemon kubelet "$bin/kubelet" --config="$STATE/kubelet.yaml" --kubeconfig="$STATE/node.kubeconfig" \
    --root-dir="$STATE/kubelet" --node-ip="$NODE_IP" --hostname-override="$NODE"
  daemon kube-proxy "$bin/kube-proxy" --kubeconfig="$STATE/proxy.kubeconfig" --proxy-mode=iptables \
    --cluster-cidr="$POD_CIDR" --hostname-override="$NODE" --bind-address=127.0.0.1 \
    --metrics-bind-address=127.0.0.1:10249 --healthz-bind-address=127.0.0.1:10256
  wait_for "the node to be Ready" 120 sh -c "kubectl get node $NODE -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].status}' | grep -q True"

  # NetworkPolicies: kube-router's firewall alone (no routing, no service proxy), iptables and
  # ipsets on the node beside the bridge plugin (docs/decisions/0030-network-policy-controller.md).
  # Its rules go in the legacy iptables tables, kube-proxy's in nf_tables: kube-router saves and
  # restores the whole filter table on every sync, which would put back kube-proxy's rules of a
  # moment before (a Service's "no endpoints" REJECT outliving its first ready pod).
  log "kube-router (NetworkPolicy firewall)"
  mkdir -p "$STATE/kube-router-bin"
  for cmd in iptables iptables-save iptables-restore; do
    ln -sf "/usr/sbin/${cmd/iptables/iptables-legacy}" "$STATE/kube-router-bin/$cmd"
  done
  kubectl apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: "system:kube-router" }
rules:
  # What its informers watch, services and endpoints included even with the service proxy off.
  - apiGroups: [""]
    resources: [namespaces, pods, nodes, services, endpoints]
    verbs: [get, list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [get, list, watch]
  - apiGroups: [networking.k8s.io]
    resources: [networkpolicies]
    verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "system:kube-router" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:kube-router" }
subjects: [{ apiGroup: rbac.authorization.k8s.io, kind: User, name: "system:kube-router" }]
YAML
  daemon kube-router env PATH="$STATE/kube-router-bin:$PATH" "$bin/kube-router" --kubeconfig="$STATE/kube-router.kubeconfig" --hostname-override="$NODE" \
    --run-firewall=true --run-router=false --run-service-proxy=false --run-loadbalancer=false --enable-cni=false \
    --service-cluster-ip-range="$SERVICE_CIDR" --health-port=0 --metrics-port=0
  wait_for "kube-router's firewall chains" 60 iptables-legacy -t filter -n -L KUBE-ROUTER-FORWARD

  log "CoreDNS"
  if [ ! -f "$STATE/images/coredns.tar" ]; then single_binary_image coredns "$bin/coredns" /coredns 65532 "docker.io/library/wap-coredns:local"; fi
  import_image "$STATE/images/coredns.tar"
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: ServiceAccount
metadata: { name: coredns, namespace: kube-system }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: "system:coredns" }
rules:
  - apiGroups: [""]
    resources: [endpoints, services, pods, namespaces]
    verbs: [list, watch]
  - apiGroups: [discovery.k8s.io]
    resources: [endpointslices]
    verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: { name: "system:coredns" }
roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns" }
subjects: [{ kind: ServiceAccount, name: coredns, namespace: kube-system }]
---
apiVersion: v1
kind: ConfigMap
metadata: { name: coredns, namespace: kube-system }
data:
  Corefile: |
    .:1053 {
        errors
        health {
            lameduck 2s
        }
        ready
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
        }
        cache 30
        reload
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: coredns, namespace: kube-system, labels: { k8s-app: kube-dns } }
spec:
  replicas: 1
  selector: { matchLabels: { k8s-app: kube-dns } }
  template:
    metadata: { labels: { k8s-app: kube-dns } }
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      containers:
        - name: coredns
          image: docker.io/library/wap-coredns:local
          imagePullPolicy: Never
          args: ["-conf", "/etc/coredns/Corefile"]
          ports:
            - { containerPort: 1053, name: dns, protocol: UDP }
            - { containerPort: 1053, name: dns-tcp, protocol: TCP }
          securityContext:
            allowPrivilegeEscalation: false
            capabilities: { drop: [ALL] }
            readOnlyRootFilesystem: true
            runAsNonRoot: true
          readinessProbe: { httpGet: { path: /ready, port: 8181 } }
          livenessProbe: { httpGet: { path: /health, port: 8080 } }
          volumeMounts: [{ name: config, mountPath: /etc/coredns, readOnly: true }]
      volumes: [{ name: config, configMap: { name: coredns } }]
---
apiVersion: v1
kind: Service
metadata: { name: kube-dns, namespace: kube-system, labels: { k8s-app: kube-dns } }
spec:
  clusterIP: $DNS_IP
  selector: { k8s-app: kube-dns }
  ports:
    - { name: dns, port: 53, targetPort: 1053, protocol: UDP }
    - { name: dns-tcp, port: 53, targetPort: 1053, protocol: TCP }
YAML
  kubectl -n kube-system rollout status deployment/coredns --timeout=120s >/dev/null
  log "up: export KUBECONFIG=$KUBECONFIG"
}

down() {
  [ "$(id -u)" = 0 ] || { log "run as root"; exit 1; }
  # Best effort from here on: every step runs whatever the one before found (or did not).
  set +e +o pipefail
  # Pods first, while the runtime can still stop them; then the daemons, newest first.
  if [ -S "$SOCK" ]; then
    for c in $(ctr --address "$SOCK" -n k8s.io tasks list -q 2>/dev/null); do
      ctr --address "$SOCK" -n k8s.io tasks kill -s SIGKILL "$c" >/dev/null 2>&1 || true
    done
  fi
  [ -d "$STATE/infra" ] && infra stop
  for name in kube-router kube-proxy kubelet containerd kube-scheduler kube-controller-manager kube-apiserver etcd; do
    [ -f "$PIDS/$name" ] || continue
    pid=$(cat "$PIDS/$name")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  done
  # Container processes left by the shims: every process in the kubelet's cgroups, then the cgroups.
  pkill -9 -f "containerd-shim-runc-v2 -namespace k8s.io" 2>/dev/null
  find /sys/fs/cgroup -path '*kubepods*' -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u | xargs -r kill -9 2>/dev/null
  sleep 1
  find /sys/fs/cgroup -depth -type d -path '*kubepods*' -exec rmdir {} \; 2>/dev/null
  # Mounts under the state and run directories, deepest first.
  for d in "$STATE" "$RUN"; do
    awk -v d="$d" '$2 ~ "^"d {print $2}' /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  done
  # The pods' network namespaces.
  for ns in $(ip netns list 2>/dev/null | awk '/^cni-/ {print $1}'); do ip netns delete "$ns" 2>/dev/null || true; done
  # iptables: kube-proxy's own cleanup, then every chain it or the CNI plugins made and the rules that jump to them.
  bin=$(ls -d "${WAP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wap}"/k8s/*/bin 2>/dev/null | head -1)
  if [ -n "$bin" ] && [ -x "$bin/kube-proxy" ]; then "$bin/kube-proxy" --cleanup --proxy-mode=iptables >/dev/null 2>&1 || true; fi
  # Both backends: kube-proxy's and the plugins' in nf_tables, kube-router's in the legacy tables.
  for ipt in iptables iptables-legacy; do
    for table in filter nat mangle; do
      "$ipt-save" -t "$table" 2>/dev/null | grep -E '^-A ' | grep -E -- '-j (KUBE|CNI)-|^-A (KUBE|CNI)-' | while read -r rule; do
        eval "$ipt -t $table ${rule/-A/-D}" 2>/dev/null || true
      done
      chains=$("$ipt-save" -t "$table" 2>/dev/null | sed -n 's/^:\(\(KUBE\|CNI\)-[^ ]*\) .*/\1/p')
      for chain in $chains; do "$ipt" -t "$table" -F "$chain" 2>/dev/null || true; done
      for chain in $chains; do "$ipt" -t "$table" -X "$chain" 2>/dev/null || true; done
    done
  done
  # kube-router's ipsets, once no rule refers to them.
  for set in $(ipset list -n 2>/dev/null | grep -E '^(inet6:)?KUBE-'); do ipset destroy "$set" 2>/dev/null || true; done
  for veth in $(ip -o link show master "$BRIDGE" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    ip link delete "$veth" 2>/dev/null || true
  done
  ip link delete "$BRIDGE" 2>/dev/null || true
  if [ -f "$STATE/ip_forward.before" ]; then sysctl -qw "net.ipv4.ip_forward=$(cat "$STATE/ip_forward.before")"; fi
  rm -rf "$STATE" "$RUN"
  if traces; then log "down: nothing left"; else log "down: the traces above are left"; exit 1; fi
}

# Anything of the cluster still on the machine, one line each; exit 1 when there is any.
traces() {
  local found=0 line
  while read -r line; do [ -n "$line" ] && { echo "cluster: left behind: $line"; found=1; }; done < <(
    pgrep -a -f "$STATE|$RUN|/wap/k8s/" | grep -v -e "pgrep" -e "cluster.sh" | sed 's/^/process /'
    ip -o link show "$BRIDGE" 2>/dev/null | sed 's/^/link /'
    ip netns list 2>/dev/null | awk '/^cni-/ {print "network namespace " $1}'
    awk -v s="$STATE" -v r="$RUN" 'index($2, s) == 1 || index($2, r) == 1 {print "mount " $2}' /proc/mounts
    for ipt in iptables iptables-legacy; do
      for table in filter nat mangle; do "$ipt-save" -t "$table" 2>/dev/null | sed -n "s/^:\(\(KUBE\|CNI\)-[^ ]*\) .*/$ipt chain \1/p"; done
    done
    ipset list -n 2>/dev/null | grep -E '^(inet6:)?KUBE-' | sed 's/^/ipset /'
    find /sys/fs/cgroup -maxdepth 3 -type d -name '*kubepods*' 2>/dev/null | sed 's/^/cgroup /'
    for d in "$STATE" "$RUN"; do [ -e "$d" ] && echo "directory $d"; done
  )
  return "$found"
}

case "${1:-}" in
  up) up ;;
  traces) traces ;;
  down) down ;;
  env) echo "KUBECONFIG=$STATE/admin.kubeconfig"; echo "CLUSTER_CONTAINERD_SOCK=$SOCK"; infra env | sed 's/^/CLUSTER_/' ;;
  import) import_image "$2" ;;
  *) echo "usage: $0 up|down|env|import FILE|traces" >&2; exit 2 ;;
esac
