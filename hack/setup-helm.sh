#!/usr/bin/env bash
# hack/setup-helm.sh — provide the helm CLI, built from source via the Go
# module proxy, for the chart's tests (test/helm) and for local use.
#
# Why build instead of download: helm's release binaries come from
# get.helm.sh, which is not reachable from every environment we run in. The
# Go module proxy is, and helm builds with a plain `go install`
# (CGO_ENABLED=0), so we build it once and cache the result, as
# hack/setup-envtest.sh does for kube-apiserver and etcd. helm is not added to
# this repository's go.mod: its dependency tree is large and only this
# binary needs it.
#
# Usage:
#   HELM="$(hack/setup-helm.sh)" && "$HELM" template armature charts/armature
#
# Contract:
#   * stdout carries exactly one line: the absolute path of the helm binary.
#     Everything else goes to stderr.
#   * Warm path: if the binary exists and `helm version` reports the expected
#     version, nothing is built (~0.1 s, no `go` needed).
#   * Cold path: `go install helm.sh/helm/v3/cmd/helm@<version>` with GOBIN
#     set to a temporary folder next to the binary, then an atomic rename. On
#     2 shared cores with empty module and build caches: 4 min 44 s, 97 MB of
#     module downloads, 729 MB added to the Go build cache, 0.85 GB peak RSS;
#     1 min 24 s with the modules the envtest build already downloaded; a few
#     seconds with a warm build cache.
#   * Safe to re-run after an interrupted build and to run concurrently:
#     builds are serialized with flock(1) when available.
#   * Non-interactive (works with CI=true and stdin closed).
#
# Environment:
#   ARMATURE_CACHE_DIR     the cache folder (default: ~/.cache/armature, or
#                          $XDG_CACHE_HOME/armature), shared with setup-envtest
#   ARMATURE_HELM_VERSION  the helm release to build (default below; a v4.x
#                          version builds helm.sh/helm/v4)
#   ARMATURE_HELM_BIN_DIR  output directory
#                          (default: $ARMATURE_CACHE_DIR/helm/<version>)
#
# Requires: go >= 1.24, bash, awk, sed.
set -euo pipefail

# v3.19 is built on the Kubernetes 1.34 modules, the version of the envtest
# kube-apiserver (hack/setup-envtest.sh) the chart is tested against.
readonly HELM_VERSION="${ARMATURE_HELM_VERSION:-v3.19.5}"
HELM_MAJOR="${HELM_VERSION#v}"
readonly HELM_MAJOR="${HELM_MAJOR%%.*}" # "3"
readonly HELM_MODULE="helm.sh/helm/v${HELM_MAJOR}"

# Keep the real stdout on fd 3 for the final answer; send everything else
# (our logs and all output of go) to stderr.
exec 3>&1 1>&2

log() { printf '[setup-helm %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "ERROR: $*"; exit 1; }

[[ "${HELM_VERSION}" =~ ^v[34]\.[0-9]+\.[0-9]+$ ]] || die "ARMATURE_HELM_VERSION=${HELM_VERSION}: want a helm release such as v3.19.5 or v4.1.1"

CACHE_DIR="${ARMATURE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME}/.cache}/armature}"
BIN_DIR="${ARMATURE_HELM_BIN_DIR:-${CACHE_DIR}/helm/${HELM_VERSION}}"
mkdir -p "${BIN_DIR}"
BIN_DIR="$(cd "${BIN_DIR}" && pwd -P)" # absolute, symlinks resolved
readonly BIN_DIR
readonly HELM_BIN="${BIN_DIR}/helm"

# helm_ok : the binary is there and reports the expected version.
helm_ok() {
  local out
  [[ -x "${HELM_BIN}" ]] || return 1
  if command -v timeout >/dev/null 2>&1; then
    out="$(timeout 60 "${HELM_BIN}" version --template '{{.Version}}' </dev/null 2>/dev/null)" || return 1
  else
    out="$("${HELM_BIN}" version --template '{{.Version}}' </dev/null 2>/dev/null)" || return 1
  fi
  [[ "${out}" == "${HELM_VERSION}" ]]
}

done_ok() { printf '%s\n' "${HELM_BIN}" >&3; exit 0; }

# Warm path: nothing to do (does not even need `go` on PATH).
if helm_ok; then
  done_ok
fi

command -v go >/dev/null 2>&1 || die "go is required to build helm"

# Serialize concurrent invocations.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${BIN_DIR}/.setup-helm.lock"
  if ! flock -n 9; then
    log "another setup-helm is building in ${BIN_DIR}; waiting for it..."
    flock 9
    if helm_ok; then
      done_ok
    fi
  fi
else
  log "flock(1) not found; concurrent invocations are not serialized"
fi

# Temporary folders removed on any exit, so an interrupted build leaves no
# half-written binary behind.
TMP_PATHS=()
# shellcheck disable=SC2317 # invoked via trap
cleanup() {
  local p
  for p in "${TMP_PATHS[@]+"${TMP_PATHS[@]}"}"; do
    rm -rf -- "${p}"
  done
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Go environment for a reproducible, host-runnable binary, whatever the
# caller's settings: no go.work, this host's OS and architecture, static
# (helm's own release builds are CGO_ENABLED=0), and no GOFLAGS (a caller's
# -mod=vendor would be refused by `go install pkg@version`).
export GO111MODULE=on GOWORK=off CGO_ENABLED=0 GOFLAGS=-buildvcs=false
GOOS="$(go env GOHOSTOS)"
GOARCH="$(go env GOHOSTARCH)"
export GOOS GOARCH

# Outside any module, so that this repository's go.mod is never involved.
WORK="$(mktemp -d)"
TMP_PATHS+=("${WORK}")
GOBIN_TMP="$(mktemp -d "${BIN_DIR}/.gobin.XXXXXX")"
TMP_PATHS+=("${GOBIN_TMP}")

# The Kubernetes version helm assumes when it has no cluster to ask (helm
# template, helm lint: .Capabilities.KubeVersion) is set by helm's Makefile
# from its client-go module (v0.34 -> 1.34); helm v3 needs it through
# -ldflags, v4 reads it from the build information.
log "resolving ${HELM_MODULE}@${HELM_VERSION}"
json="$(cd "${WORK}" && go mod download -json "${HELM_MODULE}@${HELM_VERSION}")" || die "go mod download ${HELM_MODULE}@${HELM_VERSION} failed: ${json}"
gomod="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' <<<"${json}")"
[[ -n "${gomod}" && -f "${gomod}" ]] || die "could not locate go.mod of ${HELM_MODULE}@${HELM_VERSION} in: ${json}"
clientgo="$(awk '$1 == "k8s.io/client-go" { print $2; exit }' "${gomod}")"
[[ "${clientgo}" =~ ^v0\.([0-9]+)\. ]] || die "no k8s.io/client-go v0.N requirement in ${gomod}"
k8s_minor="${BASH_REMATCH[1]}"

ldflags="-s -w"
ldflags+=" -X ${HELM_MODULE}/internal/version.version=${HELM_VERSION}"
ldflags+=" -X ${HELM_MODULE}/internal/version.gitTreeState=clean"
if [[ "${HELM_MAJOR}" == 3 ]]; then
  for p in pkg/chartutil pkg/lint/rules; do
    ldflags+=" -X ${HELM_MODULE}/${p}.k8sVersionMajor=1 -X ${HELM_MODULE}/${p}.k8sVersionMinor=${k8s_minor}"
  done
fi

START="${SECONDS}"
log "building helm ${HELM_VERSION} (${HELM_MODULE}/cmd/helm, Kubernetes 1.${k8s_minor} modules) into ${BIN_DIR}; this takes a few minutes once"
(cd "${WORK}" && GOBIN="${GOBIN_TMP}" go install -trimpath -ldflags "${ldflags}" "${HELM_MODULE}/cmd/helm@${HELM_VERSION}")
mv -f -- "${GOBIN_TMP}/helm" "${HELM_BIN}"
helm_ok || die "built helm but '${HELM_BIN} version' does not report ${HELM_VERSION}"
log "built helm ${HELM_VERSION} in $((SECONDS - START))s"
done_ok
