{{/*
The migration Job of one service: `node libs/db/dist/cli.js migrate
services/<name>` applies the service's Prisma migrations (through the
WebAssembly schema engine, so no engine binary is downloaded) before the new
pods start. Helm runs hooks one at a time and stops the install or upgrade when
one fails, so a bad migration never meets a new Deployment.

It runs under the namespace's default ServiceAccount (or an existing one named
in serviceAccount.name): the chart's own ServiceAccount is an ordinary resource
and does not exist yet when pre-install hooks run.
*/}}
{{- define "web-access.migrationJob" -}}
{{- $root := .root }}
apiVersion: batch/v1
kind: Job
metadata:
  name: {{ printf "%s-migrate" (include "web-access.componentName" . | trunc 55 | trimSuffix "-") }}
  labels:
    {{- include "web-access.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .name }}-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: "0"
    # Kept after success so its log can be read; replaced on the next upgrade.
    helm.sh/hook-delete-policy: before-hook-creation
spec:
  backoffLimit: {{ .s.migration.backoffLimit }}
  activeDeadlineSeconds: {{ .s.migration.activeDeadlineSeconds }}
  template:
    metadata:
      labels:
        {{- include "web-access.labels" $root | nindent 8 }}
        app.kubernetes.io/component: {{ .name }}-migrate
    spec:
      restartPolicy: Never
      {{- if and (not $root.Values.serviceAccount.create) $root.Values.serviceAccount.name }}
      serviceAccountName: {{ $root.Values.serviceAccount.name }}
      {{- end }}
      automountServiceAccountToken: false
      {{- with $root.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- include "web-access.podSecurityContext" . | nindent 8 }}
      containers:
        - name: migrate
          image: {{ include "web-access.image" . | quote }}
          imagePullPolicy: {{ include "web-access.imagePullPolicy" . }}
          workingDir: {{ $root.Values.image.workingDir }}
          command: ["node", "--enable-source-maps", "libs/db/dist/cli.js", "migrate", "services/{{ .name }}"]
          env:
            - name: DATABASE_URL
              valueFrom:
                secretKeyRef:
                  name: {{ include "web-access.databaseSecretName" . }}
                  key: {{ include "web-access.databaseSecretKey" . }}
            {{- if or $root.Values.postgres.adminUrl $root.Values.postgres.adminExistingSecret }}
            # With both, the CLI creates the database when it is missing.
            - name: DATABASE_ADMIN_URL
              valueFrom:
                secretKeyRef:
                  name: {{ include "web-access.postgresAdminSecretName" $root }}
                  key: {{ if $root.Values.postgres.adminExistingSecret }}{{ $root.Values.postgres.adminExistingSecretKey }}{{ else }}DATABASE_ADMIN_URL{{ end }}
            - name: DATABASE_NAME
              value: {{ .s.database.name | quote }}
            {{- end }}
            - name: LOG_LEVEL
              value: {{ $root.Values.logLevel | quote }}
            - name: HOME
              value: /tmp
          resources:
            {{- toYaml (.s.migration.resources | default (dict "requests" (dict "cpu" "50m" "memory" "128Mi") "limits" (dict "memory" "512Mi"))) | nindent 12 }}
          securityContext:
            {{- include "web-access.securityContext" . | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
      volumes:
        - name: tmp
          emptyDir:
            sizeLimit: 256Mi
      {{- with .s.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with .s.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
