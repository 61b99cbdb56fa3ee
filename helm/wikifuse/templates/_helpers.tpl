{{/*
Chart name, truncated to the 63 characters a DNS label allows.
*/}}
{{- define "wikifuse.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Full name: release-chart unless the release name already holds the chart name.
*/}}
{{- define "wikifuse.fullname" -}}
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

{{- define "wikifuse.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels on every object.
*/}}
{{- define "wikifuse.labels" -}}
helm.sh/chart: {{ include "wikifuse.chart" . }}
{{ include "wikifuse.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: wikifuse
{{- end }}

{{- define "wikifuse.selectorLabels" -}}
app.kubernetes.io/name: {{ include "wikifuse.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Selector labels of one component. Call with (dict "root" $ "component" "api").
*/}}
{{- define "wikifuse.componentSelectorLabels" -}}
{{ include "wikifuse.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "wikifuse.componentLabels" -}}
{{ include "wikifuse.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "wikifuse.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "wikifuse.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
Image reference. Call with (dict "root" $ "image" <optional override map>). An override that names
its own repository brings its own tag and digest; otherwise its tag/digest fall back to
.Values.image. The tag defaults to the chart's appVersion and a digest wins over the tag.
*/}}
{{- define "wikifuse.image" -}}
{{- $base := .root.Values.image -}}
{{- $override := .image | default dict -}}
{{- $repository := $override.repository | default $base.repository -}}
{{- $tag := "" -}}
{{- $digest := "" -}}
{{- if $override.repository -}}
{{- $tag = $override.tag | default .root.Chart.AppVersion -}}
{{- $digest = $override.digest | default "" -}}
{{- else -}}
{{- $tag = $override.tag | default $base.tag | default .root.Chart.AppVersion -}}
{{- $digest = $override.digest | default $base.digest -}}
{{- end -}}
{{- if $digest -}}
{{- printf "%s@%s" $repository $digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (toString $tag) -}}
{{- end -}}
{{- end }}

{{/*
Name of the Secret the chart creates for the connection URLs.
*/}}
{{- define "wikifuse.secretName" -}}
{{- printf "%s-connections" (include "wikifuse.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Secret holding one dependency's URL. Call with (dict "root" $ "dep" .Values.externalDatabase).
*/}}
{{- define "wikifuse.depSecretName" -}}
{{- .dep.existingSecret | default .root.Values.existingSecret | default (include "wikifuse.secretName" .root) }}
{{- end }}

{{/*
The external dependencies, as YAML: a list of [environment variable, key under .Values] pairs.
Read back with fromYamlArray.
*/}}
{{- define "wikifuse.dependencies" -}}
{{- $deps := list
  (list "WIKIFUSE_DATABASE_URL" "externalDatabase")
  (list "WIKIFUSE_REDIS_URL" "externalRedis")
  (list "WIKIFUSE_OPENSEARCH_URL" "externalOpenSearch") -}}
{{- toYaml $deps }}
{{- end }}

{{/*
"true" when the chart must create the connections Secret.
*/}}
{{- define "wikifuse.createSecret" -}}
{{- $create := false -}}
{{- if not .Values.existingSecret -}}
{{- range $entry := include "wikifuse.dependencies" . | fromYamlArray -}}
{{- $dep := index $.Values (index $entry 1) -}}
{{- if not $dep.existingSecret }}{{ $create = true }}{{ end -}}
{{- end -}}
{{- end -}}
{{- if $create }}true{{ end -}}
{{- end }}

{{/*
Environment of every wikifuse container: non-secret settings from the ConfigMap, URLs from the
Secret(s). Call with (dict "root" $ "extraEnv" <list>).
*/}}
{{- define "wikifuse.env" -}}
envFrom:
  - configMapRef:
      name: {{ include "wikifuse.fullname" .root }}
env:
{{- range $entry := include "wikifuse.dependencies" .root | fromYamlArray }}
{{- $dep := index $.root.Values (index $entry 1) }}
  - name: {{ index $entry 0 }}
    valueFrom:
      secretKeyRef:
        name: {{ include "wikifuse.depSecretName" (dict "root" $.root "dep" $dep) }}
        key: {{ $dep.existingSecretKey }}
{{- end }}
{{- with .extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Checksums that roll pods when the chart-made ConfigMap or Secret changes.
*/}}
{{- define "wikifuse.checksums" -}}
checksum/config: {{ include (print .Template.BasePath "/configmap.yaml") . | sha256sum }}
{{- if include "wikifuse.createSecret" . }}
checksum/secret: {{ include (print .Template.BasePath "/secret.yaml") . | sha256sum }}
{{- end }}
{{- end }}

{{/*
Writable volumes for a read-only root filesystem.
*/}}
{{- define "wikifuse.volumeMounts" -}}
- name: tmp
  mountPath: /tmp
- name: data
  mountPath: /var/lib/wikifuse
{{- end }}

{{- define "wikifuse.volumes" -}}
- name: tmp
  emptyDir:
    {{- with .Values.tmpVolume.sizeLimit }}
    sizeLimit: {{ . }}
    {{- end }}
- name: data
  emptyDir:
    {{- with .Values.tmpVolume.sizeLimit }}
    sizeLimit: {{ . }}
    {{- end }}
{{- end }}
