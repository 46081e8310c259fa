{{/*
The Deployment (browser-host: StatefulSet) of one service: one Node process
from the shared image, its environment, probes and the writable volumes a
read-only root needs; the agent's also has the fetch-model container and the
model volume while agent.embeddedModel is on (_embedded-model.tpl).
*/}}
{{- define "web-access.workload" -}}
{{- $s := .s }}
{{- $kind := include "web-access.workloadKind" . }}
{{- $model := include "web-access.embeddedModelOn" . }}
{{- $annotations := dict }}
{{- if and $s.database.enabled (not $s.database.existingSecret) }}
{{- /* Rolls the pods when the generated DATABASE_URL changes. */}}
{{- $_ := set $annotations "checksum/database" (include "web-access.databaseUrl" . | sha256sum) }}
{{- end }}
{{- with $s.metricsPort }}
{{- /* Prometheus' usual pod discovery (kubernetes_sd_configs role: pod) reads these. */}}
{{- $_ := set $annotations "prometheus.io/scrape" "true" }}
{{- $_ := set $annotations "prometheus.io/port" (toString .) }}
{{- $_ := set $annotations "prometheus.io/path" "/metrics" }}
{{- end }}
{{- $annotations = mergeOverwrite $annotations ($s.podAnnotations | default dict) }}
apiVersion: apps/v1
kind: {{ $kind }}
metadata:
  name: {{ include "web-access.componentName" . }}
  labels:
    {{- include "web-access.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  {{- if not $s.autoscaling.enabled }}
  replicas: {{ $s.replicas }}
  {{- end }}
  revisionHistoryLimit: 5
  {{- if eq $kind "StatefulSet" }}
  # The headless Service: every pod is <pod>.<service> in DNS, its announced gRPC address.
  serviceName: {{ include "web-access.componentName" . }}
  # Hosts are peers: they start and stop side by side, not one after another.
  podManagementPolicy: Parallel
  updateStrategy:
    type: RollingUpdate
  {{- else }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 1
      maxUnavailable: 0
  {{- end }}
  selector:
    matchLabels:
      {{- include "web-access.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "web-access.labels" .root | nindent 8 }}
        app.kubernetes.io/component: {{ .name }}
        {{- with $s.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $annotations }}
      annotations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    spec:
      serviceAccountName: {{ include "web-access.serviceAccountName" .root }}
      automountServiceAccountToken: {{ .root.Values.serviceAccount.automountToken }}
      {{- with .root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- include "web-access.podSecurityContext" . | nindent 8 }}
      terminationGracePeriodSeconds: {{ include "web-access.terminationGracePeriod" . }}
      containers:
        - name: {{ .name }}
          image: {{ include "web-access.image" . | quote }}
          imagePullPolicy: {{ include "web-access.imagePullPolicy" . }}
          workingDir: {{ .root.Values.image.workingDir }}
          # The node flags of libs/fleet's SERVICE_NODE_FLAGS (why each: there).
          command: ["node", "--enable-source-maps", "--max-semi-space-size=2", "services/{{ .name }}/dist/main.js"]
          ports:
            - name: grpc
              containerPort: {{ .root.Values.grpcPort }}
              protocol: TCP
            {{- if $s.httpPort }}
            - name: http
              containerPort: {{ $s.httpPort }}
              protocol: TCP
            {{- end }}
            {{- if $s.metricsPort }}
            - name: metrics
              containerPort: {{ $s.metricsPort }}
              protocol: TCP
            {{- end }}
          env:
            {{- include "web-access.env" . | trim | nindent 12 }}
          {{- with $s.envFrom }}
          envFrom:
            {{- toYaml . | nindent 12 }}
          {{- end }}
          {{- include "web-access.probes" . | trim | nindent 10 }}
          {{- if $s.preStopSleepSeconds }}
          lifecycle:
            preStop:
              exec:
                command: ["sleep", "{{ $s.preStopSleepSeconds }}"]
          {{- end }}
          resources:
            {{- include "web-access.containerResources" . | nindent 12 }}
          securityContext:
            {{- include "web-access.securityContext" . | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- if $s.shm.enabled }}
            - name: shm
              mountPath: /dev/shm
            {{- end }}
            {{- if $model }}
            - name: model
              mountPath: {{ include "web-access.embeddedModelDir" . }}
              readOnly: true
            {{- end }}
        {{- if $model }}
        {{- include "web-access.embeddedModelContainer" . | trim | nindent 8 }}
        {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: {{ $s.tmpSizeLimit }}
        {{- if $s.shm.enabled }}
        - name: shm
          emptyDir:
            medium: Memory
            sizeLimit: {{ $s.shm.sizeLimit }}
        {{- end }}
        {{- if $model }}
        {{- include "web-access.embeddedModelVolume" . | trim | nindent 8 }}
        {{- end }}
      {{- with $s.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $s.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $s.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $s.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}

{{/*
The environment: POD_NAME for browser-host (first, so later values can say
$(POD_NAME)), SERVICE_TOKEN, DATABASE_URL (and NATS_URL when it is secret) from Secrets,
then the plain variables, sorted, with the global `env` and then the service's
`env` merged over the defaults (a null value drops a default).
*/}}
{{- define "web-access.env" -}}
{{- $root := .root }}
{{- $plain := dict
  "OTEL_SERVICE_NAME" .name
  "LOG_LEVEL" $root.Values.logLevel
  "SHUTDOWN_TIMEOUT" (printf "%ss" (include "web-access.shutdownSeconds" .))
  "GRPC_HOST" "0.0.0.0"
  "GRPC_PORT" $root.Values.grpcPort
  "NATS_REPLICAS" $root.Values.nats.replicas
  "NODE_ENV" "production"
  "HOME" "/tmp" }}
{{- $natsSecret := include "web-access.natsSecretName" $root }}
{{- if not $natsSecret }}
{{- $_ := set $plain "NATS_URL" $root.Values.nats.url }}
{{- end }}
{{- with $root.Values.otel.endpoint }}
{{- $_ := set $plain "OTEL_EXPORTER_OTLP_ENDPOINT" . }}
{{- end }}
{{- if .s.httpPort }}
{{- /* browser-host's HTTP port is its CDP endpoint, CDP_HOST/CDP_PORT. */}}
{{- $http := ternary "CDP" "HTTP" (eq .name "browser-host") }}
{{- $_ := set $plain (printf "%s_HOST" $http) "0.0.0.0" }}
{{- $_ := set $plain (printf "%s_PORT" $http) .s.httpPort }}
{{- end }}
{{- with .s.metricsPort }}
{{- $_ := set $plain "METRICS_PORT" . }}
{{- end }}
{{- if include "web-access.embeddedModelOn" . }}
{{- /* The agent's embedded model: where the fetch-model container puts it (_embedded-model.tpl). */}}
{{- $_ := merge $plain (include "web-access.embeddedModelEnv" . | fromYaml) }}
{{- end }}
{{- /* Only enabled services get an address: the gateway leaves the others' capabilities out. */}}
{{- range $upstream := splitList " " (include "web-access.upstreams" .name) }}
{{- if (index $root.Values (include "web-access.valuesKey" $upstream)).enabled }}
{{- $_ := set $plain (printf "%s_ADDR" ($upstream | upper | replace "-" "_")) (include "web-access.grpcAddress" (dict "root" $root "name" $upstream)) }}
{{- end }}
{{- end }}
{{- if eq .name "browser-host" }}
{{- /* Each host's own addresses, from its pod name (POD_NAME, below): what it announces and what its tickets name. */}}
{{- $_ := set $plain "GRPC_PUBLIC_ADDR" (printf "$(POD_NAME).%s.%s.svc.%s:%d" (include "web-access.componentName" .) $root.Release.Namespace $root.Values.clusterDomain (int $root.Values.grpcPort)) }}
{{- $_ := set $plain "CDP_PUBLIC_URL" (include "web-access.cdpPublicUrl" .) }}
{{- end }}
{{- range $overrides := list ($root.Values.env | default dict) (.s.env | default dict) }}
{{- range $name, $value := $overrides }}
{{- $_ := set $plain $name $value }}
{{- end }}
{{- end }}
{{- if eq .name "browser-host" }}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
{{- end }}
- name: SERVICE_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.serviceTokenSecretName" $root }}
      key: {{ $root.Values.serviceToken.existingSecretKey }}
{{- if .s.database.enabled }}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.databaseSecretName" . }}
      key: {{ include "web-access.databaseSecretKey" . }}
{{- end }}
{{- if has .name (list "browser-host" "session-recorder") }}
- name: RECORDING_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.sessionKeysSecretName" $root }}
      key: RECORDING_KEY
{{- end }}
{{- if eq .name "browser-host" }}
- name: PROFILE_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.sessionKeysSecretName" $root }}
      key: PROFILE_KEY
      optional: true
{{- end }}
{{- if eq .name "agent" }}
- name: AGENT_FILES_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.sessionKeysSecretName" $root }}
      key: AGENT_FILES_KEY
      optional: true
- name: AGENT_SECRETS_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.sessionKeysSecretName" $root }}
      key: AGENT_SECRETS_KEY
      optional: true
{{- end }}
{{- if eq .name "crawl" }}
- name: CRAWL_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.sessionKeysSecretName" $root }}
      key: CRAWL_KEY
      optional: true
{{- end }}
{{- if eq .name "monitor" }}
- name: MONITOR_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.sessionKeysSecretName" $root }}
      key: MONITOR_KEY
      optional: true
{{- end }}
{{- if eq .name "gateway" }}
- name: REPLAY_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.sessionKeysSecretName" $root }}
      key: REPLAY_KEY
- name: OAUTH_KEY
  valueFrom:
    secretKeyRef:
      name: {{ include "web-access.sessionKeysSecretName" $root }}
      key: OAUTH_KEY
      optional: true
{{- end }}
{{- with $natsSecret }}
- name: NATS_URL
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ ternary $root.Values.nats.existingSecretKey "NATS_URL" (not (empty $root.Values.nats.existingSecret)) }}
{{- end }}
{{- range $name := keys $plain | sortAlpha }}
{{- $value := get $plain $name }}
{{- if not (kindIs "invalid" $value) }}
- name: {{ $name }}
  value: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The gateway: /healthz says the process is alive, /readyz?scope=gateway that
its own database and NATS answer. Not the services behind it (plain /readyz,
what helm test reads): a service rolling or down must not take every gateway
out of rotation at once, leaving clients a refused connection instead of that
service's 503 with Retry-After. The gRPC services: grpc.health.v1 answers
SERVING only while the database and NATS answer, so it gates readiness; it is
not a liveness signal (a database outage must not restart every pod), so
liveness is the gRPC port accepting connections, checked once a startup
probe has seen the process listen (a slow start on a busy node is not
restarted). Any probe set in values replaces its default.
*/}}
{{- define "web-access.probes" -}}
{{- $liveness := dict "tcpSocket" (dict "port" "grpc") "periodSeconds" 10 "timeoutSeconds" 3 "failureThreshold" 3 }}
{{- $readiness := dict "grpc" (dict "port" (int .root.Values.grpcPort)) "periodSeconds" 5 "timeoutSeconds" 3 "failureThreshold" 2 }}
{{- $startup := dict "tcpSocket" (dict "port" "grpc") "periodSeconds" 2 "timeoutSeconds" 3 "failureThreshold" 60 }}
{{- if eq .name "gateway" }}
{{- $liveness = dict "httpGet" (dict "path" "/healthz" "port" "http") "periodSeconds" 10 "timeoutSeconds" 3 "failureThreshold" 3 }}
{{- $startup = dict "httpGet" (dict "path" "/healthz" "port" "http") "periodSeconds" 2 "timeoutSeconds" 3 "failureThreshold" 60 }}
{{- $readiness = dict "httpGet" (dict "path" "/readyz?scope=gateway" "port" "http") "periodSeconds" 5 "timeoutSeconds" 3 "failureThreshold" 2 }}
{{- end }}
livenessProbe:
  {{- toYaml (.s.livenessProbe | default $liveness) | nindent 2 }}
readinessProbe:
  {{- toYaml (.s.readinessProbe | default $readiness) | nindent 2 }}
{{- with (.s.startupProbe | default $startup) }}
startupProbe:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
