{{/*
Names, labels and the small lookups every template shares. The per-service
resources are in _service.tpl and _migration.tpl.
*/}}

{{- define "web-access.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* <release>-web-access, or the release name alone when it already holds the chart name. */}}
{{- define "web-access.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "web-access.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels of everything the release owns; takes the root context. */}}
{{- define "web-access.labels" -}}
helm.sh/chart: {{ include "web-access.chart" . }}
app.kubernetes.io/name: {{ include "web-access.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: {{ include "web-access.name" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Selects every pod of the release (NetworkPolicy peers). */}}
{{- define "web-access.releaseSelector" -}}
app.kubernetes.io/name: {{ include "web-access.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Selects one service's pods; takes (dict "root" $ "name" "crawl"). */}}
{{- define "web-access.selectorLabels" -}}
{{ include "web-access.releaseSelector" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* The values key of a service: billing-ledger -> billingLedger. */}}
{{- define "web-access.valuesKey" -}}
{{- . | replace "-" "_" | camelcase | untitle }}
{{- end }}

{{/* Kubernetes name of a service's Deployment, Service, Secret...: <fullname>-<service>. */}}
{{- define "web-access.componentName" -}}
{{- printf "%s-%s" (include "web-access.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The services a service dials, each given as <NAME>_ADDR when enabled: the
gateway fronts them all, crawl bills, renders and asks the agent's models
for a page's json and summary, the agent holds and settles
its runs on the ledger and drives browsers, the monitor fetches each check
through crawl and bills it, browser-host bills sessions.
libs/fleet/src/services.test.ts checks these lists against the services' list
and the addresses each service's config.ts reads.
*/}}
{{- define "web-access.upstreams" -}}
{{- $dials := dict
  "gateway" "billing-ledger crawl agent monitor session-recorder browser-host"
  "crawl" "billing-ledger browser-host agent"
  "agent" "billing-ledger browser-host"
  "monitor" "billing-ledger crawl"
  "browser-host" "billing-ledger"
}}
{{- get $dials . }}
{{- end }}

{{/*
Deployment, or StatefulSet for browser-host: every browser host must be
reachable at its own URL, so it needs a name that survives it
(docs/decisions/0013-browser-hosts-scale-out.md).
*/}}
{{- define "web-access.workloadKind" -}}
{{- if eq .name "browser-host" }}StatefulSet{{ else }}Deployment{{ end }}
{{- end }}

{{/* The most pods a service can have: maxReplicas under an HPA, else replicas. */}}
{{- define "web-access.maxPods" -}}
{{- if .s.autoscaling.enabled }}{{ int .s.autoscaling.maxReplicas }}{{ else }}{{ int .s.replicas }}{{ end }}
{{- end }}

{{/*
CDP_PUBLIC_URL of a browser host, from its pod name: <scheme>://<pod>.<host>
through the Ingress when ingress.browserHosts.host is set, else its own DNS
name in the cluster (clients in the cluster only).
*/}}
{{- define "web-access.cdpPublicUrl" -}}
{{- $hosts := .root.Values.ingress.browserHosts }}
{{- if and .root.Values.ingress.enabled $hosts.host }}
{{- printf "%s://$(POD_NAME).%s" $hosts.scheme $hosts.host }}
{{- else }}
{{- printf "ws://$(POD_NAME).%s.%s.svc.%s:%d" (include "web-access.componentName" .) .root.Release.Namespace .root.Values.clusterDomain (int .s.httpPort) }}
{{- end }}
{{- end }}

{{/* host:port of a service's gRPC server as the gateway dials it. */}}
{{- define "web-access.grpcAddress" -}}
{{- printf "dns:///%s.%s.svc.%s:%d" (include "web-access.componentName" .) .root.Release.Namespace .root.Values.clusterDomain (int .root.Values.grpcPort) }}
{{- end }}

{{- define "web-access.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "web-access.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* repository:tag of a service's image; takes (dict "root" $ "s" $block). */}}
{{- define "web-access.image" -}}
{{- $image := mergeOverwrite (deepCopy .root.Values.image) (.s.image | default dict) }}
{{- printf "%s:%s" $image.repository (toString (default .root.Chart.AppVersion $image.tag)) }}
{{- end }}

{{- define "web-access.imagePullPolicy" -}}
{{- (.s.image | default dict).pullPolicy | default .root.Values.image.pullPolicy }}
{{- end }}

{{/* SHUTDOWN_TIMEOUT of a service in seconds. */}}
{{- define "web-access.shutdownSeconds" -}}
{{- if kindIs "invalid" .s.shutdownTimeoutSeconds }}{{ int .root.Values.shutdownTimeoutSeconds }}{{ else }}{{ int .s.shutdownTimeoutSeconds }}{{ end }}
{{- end }}

{{/* Above SHUTDOWN_TIMEOUT (and the preStop sleep) so a draining pod is never SIGKILLed. */}}
{{- define "web-access.terminationGracePeriod" -}}
{{- if kindIs "invalid" .s.terminationGracePeriodSeconds }}
{{- add (include "web-access.shutdownSeconds" . | int) (int .s.preStopSleepSeconds) 10 }}
{{- else }}
{{- $min := add (include "web-access.shutdownSeconds" . | int) (int .s.preStopSleepSeconds) 1 }}
{{- if lt (int .s.terminationGracePeriodSeconds) (int $min) }}
{{- fail (printf "%s.terminationGracePeriodSeconds (%d) must exceed shutdownTimeoutSeconds + preStopSleepSeconds (%d)" (include "web-access.valuesKey" .name) (int .s.terminationGracePeriodSeconds) (sub $min 1)) }}
{{- end }}
{{- int .s.terminationGracePeriodSeconds }}
{{- end }}
{{- end }}

{{/* Name of the Secret and key that hold a service's DATABASE_URL. */}}
{{- define "web-access.databaseSecretName" -}}
{{- .s.database.existingSecret | default (printf "%s-database" (include "web-access.componentName" .)) }}
{{- end }}

{{- define "web-access.databaseSecretKey" -}}
{{- if .s.database.existingSecret }}{{ .s.database.existingSecretKey | default "DATABASE_URL" }}{{ else }}DATABASE_URL{{ end }}
{{- end }}

{{/* The DATABASE_URL written into the generated Secret: database.url, else built from `postgres`. */}}
{{- define "web-access.databaseUrl" -}}
{{- $pg := .root.Values.postgres }}
{{- if .s.database.url }}
{{- .s.database.url }}
{{- else }}
{{- /* urlquery writes a space as "+", which userinfo does not decode; "+" itself comes out as %2B. */}}
{{- $auth := urlquery $pg.username | replace "+" "%20" }}
{{- if $pg.password }}{{ $auth = printf "%s:%s" $auth (urlquery $pg.password | replace "+" "%20") }}{{ end }}
{{- printf "postgresql://%s@%s:%d/%s" $auth $pg.host (int $pg.port) .s.database.name }}
{{- if $pg.params }}?{{ $pg.params }}{{ end }}
{{- end }}
{{- end }}

{{/* Whether migration Jobs get DATABASE_ADMIN_URL (and so create their database). */}}
{{- define "web-access.postgresAdminSecretName" -}}
{{- .Values.postgres.adminExistingSecret | default (printf "%s-postgres-admin" (include "web-access.fullname" .)) }}
{{- end }}

{{/* The Secret with the session keys: RECORDING_KEY (browser hosts sign recordings, the recorder checks them) and REPLAY_KEY (the gateway signs replay links). */}}
{{- define "web-access.sessionKeysSecretName" -}}
{{- .Values.sessionKeys.existingSecret | default (printf "%s-session-keys" (include "web-access.fullname" .)) }}
{{- end }}

{{/* The Secret with SERVICE_TOKEN: every service sends it on its gRPC calls and asks it of those it serves. */}}
{{- define "web-access.serviceTokenSecretName" -}}
{{- .Values.serviceToken.existingSecret | default (printf "%s-service-token" (include "web-access.fullname" .)) }}
{{- end }}

{{/*
The Secret NATS_URL comes from: nats.existingSecret, or the chart's own when
nats.user is set (NATS_URL with the user and password); empty: NATS_URL is a
plain value.
*/}}
{{- define "web-access.natsSecretName" -}}
{{- if and .Values.nats.existingSecret .Values.nats.user }}
{{- fail "nats.user and nats.existingSecret: name the credentials one way (the Secret's NATS_URL carries them)" }}
{{- end }}
{{- if ne (empty .Values.nats.user) (empty .Values.nats.password) }}
{{- fail "nats.user and nats.password go together (a token alone: nats.existingSecret with nats://<token>@...)" }}
{{- end }}
{{- if .Values.nats.existingSecret }}
{{- .Values.nats.existingSecret }}
{{- else if .Values.nats.user }}
{{- printf "%s-nats" (include "web-access.fullname" .) }}
{{- end }}
{{- end }}

{{/* nats.url with nats.user and nats.password in each server's URL, percent-encoded as in web-access.databaseUrl. */}}
{{- define "web-access.natsUrlWithCredentials" -}}
{{- $auth := urlquery .Values.nats.user | replace "+" "%20" }}
{{- $auth = printf "%s:%s" $auth (urlquery .Values.nats.password | replace "+" "%20") }}
{{- $servers := list }}
{{- range $server := splitList "," .Values.nats.url }}
{{- $server = trim $server }}
{{- $servers = append $servers (regexReplaceAll "^([a-z]+://)" $server (printf "${1}%s@" $auth)) }}
{{- end }}
{{- join "," $servers }}
{{- end }}

{{/* Pod and container security contexts: the global ones with the service's merged over. */}}
{{- define "web-access.podSecurityContext" -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.podSecurityContext) (.s.podSecurityContext | default dict)) }}
{{- end }}

{{- define "web-access.securityContext" -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.securityContext) (.s.securityContext | default dict)) }}
{{- end }}
