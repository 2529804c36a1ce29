#!/usr/bin/env bash
# tier.sh runs the generated tier's targets (docs/tiers.md, hack/mk/tiers.mk).
#
#   hack/tier.sh crds    generate the tier from the pinned corpus (hack/corpus.sh):
#                        tier/providers, tier/apis/registry.go, config/crd/generated;
#                        then check it against tier/kinds.tsv
#   hack/tier.sh test    crds, then the envtest test of the tier (tier/test): every CRD
#                        installed and Established, a few tier kinds Ready against the
#                        ARM emulator; skipped, with a message, without the corpus
#   hack/tier.sh build   crds, then the operator with the tier: bin/operator-tier
#
# A generation takes minutes (one sweep of the corpus and a go build of the tier),
# so crds does it only when its inputs changed since the last one: the corpus, the
# generator's sources, the curated tier's descriptors, go.mod/go.sum and the facts
# table, hashed into tier/.inputs. Otherwise it checks that config/crd/generated
# holds what the last generation wrote, and compares that with tier/kinds.tsv.
#
# Environment: FORCE=1 regenerates anyway; UPDATE=1 rewrites tier/kinds.tsv;
# TIER_FLAGS passes more flags to `armature tier` (-j N, --markdown FILE…);
# GO is the go command.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
GO=${GO:-go}
stamp=tier/.inputs

# inputs prints the digest of what a generation depends on.
inputs() {
  {
    echo "corpus $1"
    find generator cmd/armature runtime/descriptor api/core -name '*.go' ! -name '*_test.go' -print0 | sort -z | xargs -0 sha256sum
    find generated/apis -name descriptors.go -print0 | sort -z | xargs -0 sha256sum
    sha256sum go.mod go.sum
    if [[ -f specs/terraform/azurerm.json ]]; then sha256sum specs/terraform/azurerm.json; fi
  } | sha256sum | cut -d' ' -f1
}

crds() {
  local dir digest update=() rc=0
  if ! dir=$(hack/corpus.sh); then
    echo "make crds: the wide corpus is absent (hack/corpus.sh above): the generated tier is made from it" >&2
    return 1
  fi
  digest=$(inputs "$(basename "$dir")")
  if [[ -n "${UPDATE:-}" ]]; then update=(--update); fi
  if [[ -z "${FORCE:-}" && -f "$stamp" && "$(cat "$stamp")" == "$digest" && -f tier/apis/registry.go ]]; then
    echo "make crds: the tier is current (its inputs are unchanged since $(date -r "$stamp" '+%F %T')); FORCE=1 regenerates it"
    # shellcheck disable=SC2086
    $GO run ./cmd/armature tier --check-only "${update[@]}"
    return
  fi
  rm -f "$stamp"
  # shellcheck disable=SC2086
  $GO run ./cmd/armature tier ${TIER_FLAGS:-} "${update[@]}" "$dir" || rc=$?
  # 3: generated and compiled, but not what tier/kinds.tsv says.
  if [[ $rc -eq 0 || $rc -eq 3 ]]; then echo "$digest" >"$stamp"; fi
  return $rc
}

case "${1:-}" in
  crds)
    crds
    ;;
  test)
    if ! hack/corpus.sh >/dev/null 2>&1; then
      echo "tier-test: SKIPPED: the wide corpus (../shared/specs/arm-stable-a977c730.tar.xz, or ARMATURE_CORPUS) is absent, so the generated tier cannot be made; nothing tested" >&2
      exit 0
    fi
    crds
    assets=$(hack/setup-envtest.sh)
    cd tier
    KUBEBUILDER_ASSETS="$assets" GOWORK=off $GO test -count=1 -v -timeout 30m ./test/
    ;;
  build)
    crds
    mkdir -p bin
    start=$(date +%s)
    (cd tier && GOWORK=off CGO_ENABLED=0 $GO build -trimpath -buildvcs=false -ldflags="-s -w" -o ../bin/operator-tier ./cmd/operator)
    echo "bin/operator-tier: $(du -m bin/operator-tier | cut -f1) MiB, built in $(($(date +%s) - start)) s"
    ;;
  *)
    echo "usage: hack/tier.sh crds|test|build" >&2
    exit 2
    ;;
esac
