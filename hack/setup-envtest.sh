#!/usr/bin/env bash
# hack/setup-envtest.sh — provide kube-apiserver + etcd (+ kubectl) for
# controller-runtime envtest, built from source via the Go module proxy.
#
# Why build instead of download: `setup-envtest` (controller-runtime) fetches
# prebuilt tarballs from GitHub/GCS, which is not reachable from every
# environment we run in. The Go module proxy is, and both projects build with
# plain `go build` (CGO_ENABLED=0), so we build them once and cache the result.
#
# Usage:
#   export KUBEBUILDER_ASSETS="$(hack/setup-envtest.sh)"
#
# Contract:
#   * stdout carries exactly one line: the absolute directory holding
#     kube-apiserver, etcd and kubectl (suitable for KUBEBUILDER_ASSETS or
#     envtest.Environment.BinaryAssetsDirectory). Everything else -> stderr.
#   * Warm path: if kube-apiserver and etcd already exist in that directory and
#     report the expected versions (`--version`), nothing is built (~0.1 s).
#     kubectl is a convenience: it is (re)built only together with the others,
#     unless ARMATURE_K8S_KUBECTL=ensure.
#   * Cold path (empty module + build cache, 2 cores): ~6.5 min wall
#     (etcd ~1 min, kube-apiserver ~3.5 min, kubectl ~1 min), ~1.8 GB peak
#     RSS, ~650 MB of module downloads, ~3 GB added to the Go build cache.
#     With a warm Go build cache a rebuild takes ~10 s.
#   * Safe to re-run after an interrupted build and to run concurrently:
#     builds are serialized with flock(1) when available, every binary is
#     linked to a temp file in the target directory and atomically renamed.
#   * Non-interactive (works with CI=true and stdin closed).
#
# Environment:
#   ARMATURE_CACHE_DIR    the cache folder (default: ~/.cache/armature,
#                         or $XDG_CACHE_HOME/armature)
#   ARMATURE_K8S_BIN_DIR  output directory
#                         (default: $ARMATURE_CACHE_DIR/k8s/<K8S_VERSION>)
#   ARMATURE_K8S_SRC_DIR  where the scratch Go modules used for building live
#                         (default: $ARMATURE_CACHE_DIR/k8s/src)
#   ARMATURE_K8S_KUBECTL  1 (default): build kubectl with kube-apiserver;
#                         0: never; ensure: also build it when kube-apiserver
#                         and etcd are already there (`make sandbox`)
#
# Requires: go >= 1.24 (uses the go.mod `tool` directive), bash, awk, sed.
set -euo pipefail

readonly K8S_VERSION="1.34.3"
readonly ETCD_VERSION="3.6.4"
# Kubernetes "staging" modules (k8s.io/api, k8s.io/apiserver, ...) are
# published as v0.<minor>.<patch> alongside v1.<minor>.<patch>.
readonly K8S_STAGING_VERSION="v0.${K8S_VERSION#*.}"
K8S_MINOR="${K8S_VERSION#*.}"
readonly K8S_MINOR="${K8S_MINOR%%.*}" # "34"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd -P)"
readonly SCRIPT_DIR REPO_ROOT

# Keep the real stdout on fd 3 for the final answer; send everything else
# (our logs and all output of go/commands we run) to stderr.
exec 3>&1 1>&2

log() { printf '[setup-envtest %s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { log "ERROR: $*"; exit 1; }

# The cache lives outside the clone (ARMATURE_CACHE_DIR, default
# ~/.cache/armature), so a fresh clone on the same machine — CI's case —
# finds the binaries already built.
CACHE_DIR="${ARMATURE_CACHE_DIR:-${XDG_CACHE_HOME:-${HOME}/.cache}/armature}"
BIN_DIR="${ARMATURE_K8S_BIN_DIR:-${CACHE_DIR}/k8s/${K8S_VERSION}}"
SRC_DIR="${ARMATURE_K8S_SRC_DIR:-${CACHE_DIR}/k8s/src}"
BUILD_KUBECTL="${ARMATURE_K8S_KUBECTL:-1}"
mkdir -p "${BIN_DIR}"
BIN_DIR="$(cd "${BIN_DIR}" && pwd -P)" # absolute, symlinks resolved
readonly BIN_DIR SRC_DIR BUILD_KUBECTL

# ---------------------------------------------------------------------------
# Version checks
# ---------------------------------------------------------------------------

# run_quietly CMD... : run CMD with a time limit (if timeout(1) exists) and no
# stdin, printing its combined output.
run_quietly() {
  if command -v timeout >/dev/null 2>&1; then
    timeout 60 "$@" </dev/null 2>&1
  else
    "$@" </dev/null 2>&1
  fi
}

# binary_ok NAME EXPECTED ARGS... : true if BIN_DIR/NAME is executable, runs
# with ARGS successfully, and its output contains EXPECTED.
binary_ok() {
  local bin="${BIN_DIR}/$1" expected="$2" out
  shift 2
  [[ -x "${bin}" ]] || return 1
  out="$(run_quietly "${bin}" "$@")" || return 1
  [[ "${out}" == *"${expected}"* ]]
}

apiserver_ok() { binary_ok kube-apiserver "Kubernetes v${K8S_VERSION}" --version; }
etcd_ok() { binary_ok etcd "etcd Version: ${ETCD_VERSION}" --version; }
kubectl_ok() { binary_ok kubectl "Client Version: v${K8S_VERSION}" version --client; }

done_ok() { printf '%s\n' "${BIN_DIR}" >&3; exit 0; }

# all_ok : the binaries asked for are there (kubectl only with "ensure").
all_ok() { apiserver_ok && etcd_ok && { [[ "${BUILD_KUBECTL}" != "ensure" ]] || kubectl_ok; }; }

# Warm path: nothing to do (does not even need `go` on PATH).
if all_ok; then
  done_ok
fi

# ---------------------------------------------------------------------------
# Cold path
# ---------------------------------------------------------------------------

command -v go >/dev/null 2>&1 || die "go is required to build the envtest binaries"

# Serialize concurrent invocations. The lock file lives next to the binaries;
# envtest only looks for specific file names, so it is harmless there.
if command -v flock >/dev/null 2>&1; then
  exec 9>"${BIN_DIR}/.setup-envtest.lock"
  if ! flock -n 9; then
    log "another setup-envtest is building in ${BIN_DIR}; waiting for it..."
    flock 9
    # The other invocation may have produced everything we need.
    if all_ok; then
      done_ok
    fi
  fi
  # We hold the lock, so no other build is running: temp files left over by a
  # previous invocation that was killed with SIGKILL are stale.
  rm -f -- "${BIN_DIR}"/.*.tmp.*
else
  log "flock(1) not found; concurrent invocations are not serialized"
fi

# Temporary files/dirs removed on any exit (including Ctrl-C / SIGTERM), so an
# interrupted build leaves no half-written binary behind.
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

# Go environment for reproducible, self-contained, host-runnable binaries:
#  - GOWORK=off: never pick up a go.work from a parent directory.
#  - GOOS/GOARCH: the binaries must run on this host even if the caller is
#    set up for cross-compilation.
#  - CGO_ENABLED=0: static binaries, no C toolchain needed (matches upstream
#    release builds of both projects).
#  - -mod=mod on the command lines below overrides a caller's GOFLAGS=-mod=vendor.
export GO111MODULE=on GOWORK=off CGO_ENABLED=0
GOOS="$(go env GOHOSTOS)"
GOARCH="$(go env GOHOSTARCH)"
export GOOS GOARCH

# dep_gomod MODULE VERSION : download MODULE@VERSION into the module cache and
# print the path of its go.mod file there.
dep_gomod() {
  local json gomod empty rc=0
  # Must run outside of any module, otherwise the enclosing go.mod (this
  # repo's!) gets involved. Called via $(...), so clean up here, not via trap.
  empty="$(mktemp -d)"
  json="$(cd "${empty}" && go mod download -json "$1@$2")" || rc=$?
  rmdir -- "${empty}" || true
  [[ "${rc}" == 0 ]] || die "go mod download $1@$2 failed: ${json}"
  gomod="$(sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p' <<<"${json}")"
  [[ -n "${gomod}" && -f "${gomod}" ]] || die "could not locate go.mod of $1@$2 in: ${json}"
  printf '%s\n' "${gomod}"
}

# prepare_module DIR DEP VERSION REPLACE_SPEC TOOL... : make DIR a scratch Go
# module that requires DEP@VERSION and declares the TOOL packages (go.mod
# `tool` directive, so `go mod tidy` records every checksum they need).
#  - The `go` and `godebug` directives are copied from DEP's own go.mod, so
#    the binaries get the same GODEBUG defaults as upstream builds.
#  - REPLACE_SPEC is a newline-separated list of `old=new@version` go mod edit
#    -replace arguments (may be empty).
# The module is (re)generated unless a stamp from a previous successful run
# with identical inputs exists, so an interrupted `go mod tidy` self-heals.
prepare_module() {
  local dir="$1" dep="$2" version="$3" replaces="$4"
  shift 4
  local stamp_file="${dir}/.armature-setup-envtest-stamp"
  local stamp gomod go_version godebug args=() r t
  stamp="$(printf '%s@%s\n%s\n%s\n' "${dep}" "${version}" "${replaces}" "$*")"
  if [[ -f "${stamp_file}" && "$(cat "${stamp_file}")" == "${stamp}" ]]; then
    log "scratch module ${dir} is up to date"
    return 0
  fi

  log "preparing scratch module ${dir} for ${dep}@${version}"
  gomod="$(dep_gomod "${dep}" "${version}")"
  go_version="$(awk '$1 == "go" { print $2; exit }' "${gomod}")"
  # godebug may be a single line (`godebug k=v`) or a block (`godebug ( ... )`).
  godebug="$(awk '
    $1 == "godebug" && $2 == "(" { inblock = 1; next }
    inblock && $1 == ")"         { inblock = 0; next }
    inblock && NF                { print $1; next }
    $1 == "godebug"              { print $2 }
  ' "${gomod}")"

  rm -rf -- "${dir}"
  mkdir -p "${dir}"
  {
    printf '// Generated by hack/setup-envtest.sh; scratch module used only to build\n'
    printf '// %s@%s from the Go module proxy. Safe to delete.\n' "${dep}" "${version}"
    printf 'module armature.local/envtest-build/%s\n\n' "$(basename "${dir}")"
    printf 'go %s\n' "${go_version:-1.24}"
  } >"${dir}/go.mod"

  args=("-require=${dep}@${version}")
  while IFS= read -r r; do
    [[ -n "${r}" ]] && args+=("-godebug=${r}")
  done <<<"${godebug}"
  while IFS= read -r r; do
    [[ -n "${r}" ]] && args+=("-replace=${r}")
  done <<<"${replaces}"
  for t in "$@"; do
    args+=("-tool=${t}")
  done
  (cd "${dir}" && go mod edit "${args[@]}")

  log "resolving dependencies (go mod tidy) in ${dir}"
  (cd "${dir}" && go mod tidy)
  printf '%s' "${stamp}" >"${stamp_file}"
}

# k8s_staging_replaces : print `k8s.io/x=k8s.io/x@v0.N.P` for every staging
# module that kubernetes' go.mod replaces with a local ./staging/ directory.
# Those replaces only work inside the kubernetes repo; as a dependency we must
# point them at the published staging module versions ourselves.
k8s_staging_replaces() {
  local gomod
  gomod="$(dep_gomod k8s.io/kubernetes "v${K8S_VERSION}")"
  awk -v ver="${K8S_STAGING_VERSION}" '
    {
      for (i = 1; i < NF; i++) {
        if ($i == "=>" && $(i + 1) ~ /^\.\/staging\//) {
          mod = ($1 == "replace") ? $2 : $1
          print mod "=" mod "@" ver
        }
      }
    }
  ' "${gomod}" | sort -u
}

# go_build DIR PKG NAME LDFLAGS : build PKG inside scratch module DIR and
# atomically install it as BIN_DIR/NAME.
go_build() {
  local dir="$1" pkg="$2" name="$3" ldflags="$4" tmp start
  tmp="${BIN_DIR}/.${name}.tmp.$$"
  TMP_PATHS+=("${tmp}")
  start="${SECONDS}"
  log "building ${name} (${pkg}) for ${GOOS}/${GOARCH}..."
  # -buildvcs=false: the scratch module sits inside this repo's git checkout;
  # VCS stamping would run git there (and fails on e.g. "dubious ownership").
  (cd "${dir}" && go build -mod=mod -trimpath -buildvcs=false \
    -ldflags "${ldflags}" -o "${tmp}" "${pkg}")
  mv -f -- "${tmp}" "${BIN_DIR}/${name}"
  log "built ${name} in $((SECONDS - start))s"
}

START="${SECONDS}"
log "building envtest binaries into ${BIN_DIR} (kube-apiserver v${K8S_VERSION}, etcd v${ETCD_VERSION}); this takes a few minutes once"

# --- etcd -----------------------------------------------------------------
# The server module root is etcd's main package. `go install ...@v3.6.4` is
# refused because etcd's go.mod has replace directives, hence the scratch
# module. Its sibling modules (api, client, pkg) are required at v3.6.4 by
# the server go.mod already, so no replaces are needed.
if ! etcd_ok; then
  ETCD_SRC="${SRC_DIR}/etcd"
  prepare_module "${ETCD_SRC}" go.etcd.io/etcd/server/v3 "v${ETCD_VERSION}" "" \
    go.etcd.io/etcd/server/v3
  go_build "${ETCD_SRC}" go.etcd.io/etcd/server/v3 etcd "-s -w"
  etcd_ok || die "built etcd but '${BIN_DIR}/etcd --version' does not report ${ETCD_VERSION}"
fi

# --- kube-apiserver (+ kubectl) -------------------------------------------
need_kubectl=0
if [[ "${BUILD_KUBECTL}" != "0" ]] && ! kubectl_ok; then
  need_kubectl=1
fi
if ! apiserver_ok || [[ "${need_kubectl}" == 1 ]]; then
  K8S_SRC="${SRC_DIR}/kube-apiserver"
  # Assigned separately: a failing $(...) inside a command's arguments would
  # not trip `set -e`.
  k8s_replaces="$(k8s_staging_replaces)"
  [[ -n "${k8s_replaces}" ]] || die "found no ./staging/ replaces in k8s.io/kubernetes@v${K8S_VERSION} go.mod"
  prepare_module "${K8S_SRC}" k8s.io/kubernetes "v${K8S_VERSION}" "${k8s_replaces}" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl
  # Version stamping normally done by kubernetes' hack/lib/version.sh. Without
  # it the binaries report v0.0.0-master and compatibility-version logic breaks.
  k8s_ldflags="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    k8s_ldflags+=" -X ${p}.gitVersion=v${K8S_VERSION}"
    k8s_ldflags+=" -X ${p}.gitMajor=1 -X ${p}.gitMinor=${K8S_MINOR}"
    k8s_ldflags+=" -X ${p}.gitTreeState=archive"
  done
  if ! apiserver_ok; then
    go_build "${K8S_SRC}" k8s.io/kubernetes/cmd/kube-apiserver kube-apiserver "${k8s_ldflags}"
    apiserver_ok || die "built kube-apiserver but '--version' does not report v${K8S_VERSION}"
  fi
  if [[ "${need_kubectl}" == 1 ]]; then
    go_build "${K8S_SRC}" k8s.io/kubernetes/cmd/kubectl kubectl "${k8s_ldflags}"
    kubectl_ok || die "built kubectl but 'kubectl version --client' does not report v${K8S_VERSION}"
  fi
fi

log "envtest binaries ready in ${BIN_DIR} ($((SECONDS - START))s)"
done_ok
