{{/*
Everything one service is made of. Each templates/<service>.yaml is a single
line: {{ include "web-access.service" (dict "root" . "name" "<service>") }}.
The context handed down is (dict "root" $ "name" <service> "s" <its values block>).
*/}}
{{- define "web-access.service" -}}
{{- $key := include "web-access.valuesKey" .name }}
{{- $s := index .root.Values $key }}
{{- if not $s }}
{{- fail (printf "values: no block %q for the %s service" $key .name) }}
{{- end }}
{{- if and (eq .name "gateway") (not $s.httpPort) }}
{{- fail "gateway.httpPort is required: it serves the public API and the /healthz and /readyz probes" }}
{{- end }}
{{- if and (eq .name "browser-host") $s.enabled (not $s.httpPort) }}
{{- fail "browserHost.httpPort is required: it is the CDP endpoint /connect sends clients to" }}
{{- end }}
{{- if $s.enabled }}
{{- $ctx := dict "root" .root "name" .name "s" $s }}
{{- if and (eq (include "web-access.workloadKind" $ctx) "StatefulSet") (gt (len (include "web-access.componentName" $ctx)) 52) }}
{{- /* The controller-revision-hash label, <name>-<10 characters>, must fit in 63. */}}
{{- fail (printf "%s is longer than 52 characters, too long for a StatefulSet: shorten the release name or set fullnameOverride" (include "web-access.componentName" $ctx)) }}
{{- end }}
{{- if and $s.database.enabled (not $s.database.existingSecret) }}
---
{{ include "web-access.databaseSecret" $ctx }}
{{- end }}
{{- if and $s.database.enabled $s.migration.enabled }}
---
{{ include "web-access.migrationJob" $ctx }}
{{- end }}
{{- if and (include "web-access.embeddedModelOn" $ctx) (eq $s.embeddedModel.storage.type "persistentVolumeClaim") (not $s.embeddedModel.storage.existingClaim) }}
---
{{ include "web-access.embeddedModelClaim" $ctx }}
{{- end }}
---
{{ include "web-access.workload" $ctx }}
---
{{ include "web-access.k8sService" $ctx }}
{{- if and (eq .name "browser-host") .root.Values.ingress.enabled .root.Values.ingress.browserHosts.host }}
{{- range $ordinal := until (include "web-access.maxPods" $ctx | int) }}
---
{{ include "web-access.podService" (merge (dict "ordinal" $ordinal) $ctx) }}
{{- end }}
{{- end }}
{{- if $s.autoscaling.enabled }}
---
{{ include "web-access.hpa" $ctx }}
{{- end }}
{{- if $s.podDisruptionBudget.enabled }}
---
{{ include "web-access.pdb" $ctx }}
{{- end }}
{{- if .root.Values.networkPolicy.enabled }}
---
{{ include "web-access.networkPolicy" $ctx }}
{{- end }}
{{- end }}
{{- end }}

{{/*
A hook, like the migration Job that reads it: Helm creates hooks before the
release's ordinary resources, so an ordinary Secret would not exist yet when
the pre-install Job starts.
*/}}
{{- define "web-access.databaseSecret" -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "web-access.databaseSecretName" . }}
  labels:
    {{- include "web-access.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "-10"
    helm.sh/hook-delete-policy: before-hook-creation
type: Opaque
stringData:
  DATABASE_URL: {{ include "web-access.databaseUrl" . | quote }}
{{- end }}

{{- define "web-access.k8sService" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "web-access.componentName" . }}
  labels:
    {{- include "web-access.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  type: ClusterIP
  {{- if ne .name "gateway" }}
  # Headless: clients resolve every pod and balance calls round-robin
  # (one long-lived HTTP/2 connection to a virtual IP would pin one pod).
  clusterIP: None
  {{- end }}
  selector:
    {{- include "web-access.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ .root.Values.grpcPort }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
    {{- if .s.httpPort }}
    - name: http
      port: {{ .s.httpPort }}
      targetPort: http
      protocol: TCP
    {{- end }}
    {{- if .s.metricsPort }}
    - name: metrics
      port: {{ .s.metricsPort }}
      targetPort: metrics
      protocol: TCP
    {{- end }}
{{- end }}

{{/*
The Service of one browser-host pod, <statefulset>-<ordinal>, for the Ingress
rule of its host name: an Ingress routes to Services, never to a pod. One per
pod the StatefulSet can have, so a pod the HPA adds is routed at once.
*/}}
{{- define "web-access.podService" -}}
{{- $pod := printf "%s-%d" (include "web-access.componentName" .) .ordinal }}
apiVersion: v1
kind: Service
metadata:
  name: {{ $pod }}
  labels:
    {{- include "web-access.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  type: ClusterIP
  selector:
    {{- include "web-access.selectorLabels" . | nindent 4 }}
    statefulset.kubernetes.io/pod-name: {{ $pod }}
  ports:
    - name: http
      port: {{ .s.httpPort }}
      targetPort: http
      protocol: TCP
{{- end }}

{{- define "web-access.hpa" -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "web-access.componentName" . }}
  labels:
    {{- include "web-access.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: {{ include "web-access.workloadKind" . }}
    name: {{ include "web-access.componentName" . }}
  minReplicas: {{ .s.autoscaling.minReplicas }}
  maxReplicas: {{ .s.autoscaling.maxReplicas }}
  metrics:
    {{- with .s.autoscaling.targetCPUUtilizationPercentage }}
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
    {{- with .s.autoscaling.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
    {{- with .s.autoscaling.metrics }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with .s.autoscaling.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end }}

{{- define "web-access.pdb" -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "web-access.componentName" . }}
  labels:
    {{- include "web-access.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  maxUnavailable: {{ .s.podDisruptionBudget.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "web-access.selectorLabels" . | nindent 6 }}
{{- end }}

{{/*
In: gRPC only from this release's pods; the HTTP port from
networkPolicy.httpFrom, the metrics port from networkPolicy.metricsFrom (any
when empty). Out, with networkPolicy.egress.enabled: the cluster's DNS,
Postgres and NATS (egress.datastores), the gRPC port (and a browser host's
CDP port) of each service it dials, the internet (egress.internet: no private,
link-local or metadata address), and egress.common and egress.extra.<service>;
nothing else, so a browser host reaches no other service, no Kubernetes API
and no cloud metadata.
*/}}
{{- define "web-access.networkPolicy" -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "web-access.componentName" . }}
  labels:
    {{- include "web-access.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  podSelector:
    matchLabels:
      {{- include "web-access.selectorLabels" . | nindent 6 }}
  {{- $egress := .root.Values.networkPolicy.egress }}
  policyTypes: [{{ if $egress.enabled }}Ingress, Egress{{ else }}Ingress{{ end }}]
  ingress:
    - from:
        - podSelector:
            matchLabels:
              {{- include "web-access.releaseSelector" .root | nindent 14 }}
      ports:
        - port: grpc
          protocol: TCP
    {{- if .s.httpPort }}
    - ports:
        - port: http
          protocol: TCP
      {{- with .root.Values.networkPolicy.httpFrom }}
      from:
        - podSelector:
            matchLabels:
              {{- include "web-access.releaseSelector" $.root | nindent 14 }}
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- if .s.metricsPort }}
    - ports:
        - port: metrics
          protocol: TCP
      {{- with .root.Values.networkPolicy.metricsFrom }}
      # The release's own pods too: the chart's custom metrics API reads the browser hosts'.
      from:
        - podSelector:
            matchLabels:
              {{- include "web-access.releaseSelector" $.root | nindent 14 }}
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
  {{- if $egress.enabled }}
  egress:
    {{- with $egress.dns }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- if .s.database.enabled }}
    {{- with $egress.datastores }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- end }}
    {{- range $upstream := splitList " " (include "web-access.upstreams" .name) }}
    {{- $u := index $.root.Values (include "web-access.valuesKey" $upstream) }}
    {{- if and $upstream $u.enabled }}
    # The {{ $upstream }} service it dials.
    - to:
        - podSelector:
            matchLabels:
              {{- include "web-access.selectorLabels" (dict "root" $.root "name" $upstream) | nindent 14 }}
      ports:
        - port: {{ $.root.Values.grpcPort }}
          protocol: TCP
        {{- if and (eq $upstream "browser-host") $u.httpPort }}
        - port: {{ $u.httpPort }}
          protocol: TCP
        {{- end }}
    {{- end }}
    {{- end }}
    {{- with $egress.internet }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with $egress.common }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with (get ($egress.extra | default dict) .name) }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- end }}
{{- end }}
