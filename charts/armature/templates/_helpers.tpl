{{/*
Helpers of the armature chart, written by hand. The other templates are
rendered from config/ by hack/manifests (make manifests) and call them.
*/}}

{{/* armature.labels: the labels every object gets beside config/'s own. */}}
{{- define "armature.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* armature.image: the operator's image, by digest when one is set. */}}
{{- define "armature.image" -}}
{{- if .Values.image.digest }}{{ .Values.image.repository }}@{{ .Values.image.digest }}{{ else }}{{ .Values.image.repository }}:{{ .Values.image.tag }}{{ end }}
{{- end }}

{{/*
armature.glob: a pattern of the operator's --kinds (path.Match over
<group>/<Kind>) as a regular expression: * and ? match within one path
element. Character classes and escapes are refused rather than matched
differently from the operator.
*/}}
{{- define "armature.glob" -}}
{{- if regexMatch "[\\[\\]\\\\]" . }}{{ fail (printf "kinds: %q: the chart matches * and ? only, no [classes] or \\ escapes" .) }}{{ end }}
{{- printf "^%s$" (regexQuoteMeta . | replace "\\*" "[^/]*" | replace "\\?" "[^/]") }}
{{- end }}

{{/*
armature.selection: the CRDs the values groups and kinds choose among
those of the chart (templates/_catalog.tpl), as JSON:
  crds        {<CRD name>: true}
  groups      {<group>: [<plural>, …]}, the chosen kinds' resources
  converting  [<CRD name>, …], chosen CRDs converting through the operator
  kinds       the operator's --kinds (env ARMATURE_KINDS): "" when every
              CRD is chosen (the operator runs every installed kind), else
              <group>/* per chosen group, the kinds patterns and <group>/*
              per generatedGroups entry
A group or pattern that chooses nothing fails the render.
*/}}
{{- define "armature.selection" -}}
{{- $groups := .Values.groups | default list }}
{{- $kinds := .Values.kinds | default list }}
{{- $all := and (empty $groups) (empty $kinds) }}
{{- $patterns := dict }}
{{- range $kinds }}
{{- $_ := set $patterns . (include "armature.glob" .) }}
{{- end }}
{{- $crds := dict }}
{{- $byGroup := dict }}
{{- $converting := list }}
{{- $usedGroups := dict }}
{{- $usedKinds := dict }}
{{- $flag := list }}
{{- range $c := (include "armature.catalog" . | fromYaml).crds }}
{{- $pick := $all }}
{{- range $g := $groups }}
{{- if or (eq $g $c.group) (eq $g (index (splitList "." $c.group) 0)) }}
{{- $pick = true }}
{{- $_ := set $usedGroups $g true }}
{{- $f := printf "%s/*" $c.group }}
{{- if not (has $f $flag) }}
{{- $flag = append $flag $f }}
{{- end }}
{{- end }}
{{- end }}
{{- range $k, $re := $patterns }}
{{- if regexMatch $re (printf "%s/%s" $c.group $c.kind) }}
{{- $pick = true }}
{{- $_ := set $usedKinds $k true }}
{{- end }}
{{- end }}
{{- if $pick }}
{{- $_ := set $crds $c.name true }}
{{- $_ := set $byGroup $c.group (append (get $byGroup $c.group | default list) $c.plural) }}
{{- if $c.converts }}
{{- $converting = append $converting $c.name }}
{{- end }}
{{- end }}
{{- end }}
{{- range $groups }}
{{- if not (hasKey $usedGroups .) }}
{{- fail (printf "groups: %q is no API group of the chart (templates/_catalog.tpl)" .) }}
{{- end }}
{{- end }}
{{- range $kinds }}
{{- if not (hasKey $usedKinds .) }}
{{- fail (printf "kinds: %q matches no kind of the chart (templates/_catalog.tpl)" .) }}
{{- end }}
{{- end }}
{{- if not $all }}
{{- $flag = concat $flag $kinds }}
{{- range $.Values.generatedGroups }}
{{- $flag = append $flag (printf "%s/*" .) }}
{{- end }}
{{- end }}
{{- toJson (dict "crds" $crds "groups" $byGroup "converting" $converting "kinds" (join "," $flag)) }}
{{- end }}

{{/*
armature.pick: of (list $sel <group> (list <plural> …)), the plurals whose
CRD is chosen, as a JSON array.
*/}}
{{- define "armature.pick" -}}
{{- $sel := index . 0 }}
{{- $group := index . 1 }}
{{- $out := list }}
{{- range index . 2 }}
{{- if hasKey $sel.crds (printf "%s.%s" . $group) }}
{{- $out = append $out . }}
{{- end }}
{{- end }}
{{- toJson $out }}
{{- end }}

{{/* armature.validate: combinations of values that cannot work. */}}
{{- define "armature.validate" -}}
{{- if and (not .Values.leaderElection.enabled) (gt (int .Values.replicas) 1) }}
{{- fail "replicas > 1 needs leaderElection.enabled: every replica would reconcile and write to ARM" }}
{{- end }}
{{- range .Values.generatedGroups }}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$" .) }}
{{- fail (printf "generatedGroups: %q is not an API group name" .) }}
{{- end }}
{{- end }}
{{- end }}
