{{/*
The agent's embedded model (agent.embeddedModel, docs/models.md): a GGUF file
the agent service runs on the CPU. A second container of each agent pod,
fetch-model, fetches it with scripts/fetch-model.mjs (from the services image)
into a volume the agent container reads; the agent starts at once and its runs
wait for the file, as under `make up`. README.md, "The embedded agent model",
says why it is built this way.
*/}}

{{/* Where the model volume is mounted, in both containers (WAP_MODEL_DIR). */}}
{{- define "web-access.embeddedModelDir" -}}
/models
{{- end }}

{{/* "true" when the service is the agent and its embedded model is on; takes the service context. */}}
{{- define "web-access.embeddedModelOn" -}}
{{- if eq .name "agent" }}{{ with .s.embeddedModel }}{{ if .enabled }}true{{ end }}{{ end }}{{ end }}
{{- end }}

{{/* The file scripts/fetch-model.mjs writes for each model name (its MODELS table). */}}
{{- define "web-access.embeddedModelFile" -}}
{{- $files := dict
  "qwen2.5-coder-1.5b" "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
  "qwen2.5-coder-0.5b" "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
  "smollm2-135m" "smollm2-135m-instruct-q4_1.gguf" }}
{{- get $files . | required (printf "agent.embeddedModel.name: no model %q (known: %s)" . (keys $files | sortAlpha | join ", ")) }}
{{- end }}

{{/* The PersistentVolumeClaim the chart makes for the model (storage.type persistentVolumeClaim, no existingClaim). */}}
{{- define "web-access.embeddedModelClaimName" -}}
{{- printf "%s-model" (include "web-access.componentName" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The agent container's extra variables: merged under the global and the agent's `env`. */}}
{{- define "web-access.embeddedModelEnv" -}}
{{- $dir := include "web-access.embeddedModelDir" . }}
WAP_MODEL_DIR: {{ $dir | quote }}
EMBEDDED_MODEL_PATH: {{ printf "%s/%s" $dir (include "web-access.embeddedModelFile" .s.embeddedModel.name) | quote }}
{{- end }}

{{/*
A quantity (1Gi, 1536Mi, 1.5G, 2147483648) in bytes, for adding two of them.
Binary and decimal suffixes up to T; anything else fails rendering.
*/}}
{{- define "web-access.quantityBytes" -}}
{{- $q := toString . }}
{{- if kindIs "float64" . }}{{ $q = printf "%.0f" . }}{{ end }}
{{- if not (regexMatch "^[0-9]+(\\.[0-9]+)?(Ki|Mi|Gi|Ti|k|M|G|T)?$" $q) }}
{{- fail (printf "%q is not a memory quantity the chart can add to (e.g. 1536Mi, 2Gi, 1.5G)" $q) }}
{{- end }}
{{- $number := regexReplaceAll "^([0-9.]+).*$" $q "${1}" }}
{{- $unit := regexReplaceAll "^[0-9.]+" $q "" }}
{{- $per := dict "" 1 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 }}
{{- mulf (float64 $number) (get $per $unit) | floor | int64 }}
{{- end }}

{{/*
The agent container's resources: agent.resources, and while the model is on
its memory limit raised by embeddedModel.agentMemory (the weights are mapped
from the file, and mapped pages count against the limit). No limit stays none.
*/}}
{{- define "web-access.containerResources" -}}
{{- $resources := deepCopy (.s.resources | default dict) }}
{{- if include "web-access.embeddedModelOn" . }}
{{- with $resources.limits }}
{{- if .memory }}
{{- $bytes := add (include "web-access.quantityBytes" .memory | int64) (include "web-access.quantityBytes" $.s.embeddedModel.agentMemory | int64) }}
{{- $_ := set . "memory" (ternary (printf "%dMi" (div $bytes 1048576)) (toString $bytes) (eq (mod $bytes 1048576) 0)) }}
{{- end }}
{{- end }}
{{- end }}
{{- toYaml $resources }}
{{- end }}

{{/*
The fetch-model container: files/fetch-model.mjs (inline, so the image needs
only scripts/fetch-model.mjs) runs the fetch in a worker thread of the
container's pid 1, again after a failure, then idles until the pod stops; the
file says why it is built so.
*/}}
{{- define "web-access.embeddedModelContainer" -}}
{{- $m := .s.embeddedModel }}
{{- $plain := dict "WAP_MODEL_DIR" (include "web-access.embeddedModelDir" .) }}
{{- with $m.pypiIndex }}{{ $_ := set $plain "WAP_PYPI_INDEX" . }}{{ end }}
{{- range $name, $value := $m.env | default dict }}{{ $_ := set $plain $name $value }}{{ end }}
- name: fetch-model
  image: {{ include "web-access.image" . | quote }}
  imagePullPolicy: {{ include "web-access.imagePullPolicy" . }}
  workingDir: {{ .root.Values.image.workingDir }}
  command:
    - node
    - --input-type=module
    - --eval
    - |
      {{- .root.Files.Get "files/fetch-model.mjs" | trim | nindent 6 }}
    - --
    - {{ $m.name | quote }}
  env:
    {{- range $name := keys $plain | sortAlpha }}
    {{- $value := get $plain $name }}
    {{- if not (kindIs "invalid" $value) }}
    - name: {{ $name }}
      value: {{ toString $value | quote }}
    {{- end }}
    {{- end }}
  resources:
    {{- toYaml $m.resources | nindent 4 }}
  securityContext:
    {{- include "web-access.securityContext" . | nindent 4 }}
  volumeMounts:
    - name: model
      mountPath: {{ include "web-access.embeddedModelDir" . }}
{{- end }}

{{/* The model volume: an emptyDir per pod, or a claim the pods share. */}}
{{- define "web-access.embeddedModelVolume" -}}
{{- $storage := .s.embeddedModel.storage }}
- name: model
  {{- if eq $storage.type "persistentVolumeClaim" }}
  persistentVolumeClaim:
    claimName: {{ $storage.existingClaim | default (include "web-access.embeddedModelClaimName" .) }}
  {{- else }}
  emptyDir:
    sizeLimit: {{ $storage.size }}
  {{- end }}
{{- end }}

{{- define "web-access.embeddedModelClaim" -}}
{{- $storage := .s.embeddedModel.storage }}
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ include "web-access.embeddedModelClaimName" . }}
  labels:
    {{- include "web-access.labels" .root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}
spec:
  accessModes: [{{ $storage.accessMode }}]
  {{- if eq $storage.storageClass "-" }}
  storageClassName: ""
  {{- else if $storage.storageClass }}
  storageClassName: {{ $storage.storageClass | quote }}
  {{- end }}
  resources:
    requests:
      storage: {{ $storage.size }}
{{- end }}
