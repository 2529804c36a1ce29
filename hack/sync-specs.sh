#!/usr/bin/env bash
# sync-specs.sh gives the repository its spec root, specs/azure-rest-api-specs:
#   - a link to $ARMATURE_SPECS when set, or
#   - a link to ../shared/specs/azure-rest-api-specs when that folder exists
#     (developers' machines and CI; also beside the repository this one was
#     cloned from, when that is a local folder), or
#   - a sparse checkout of github.com/Azure/azure-rest-api-specs at the pinned
#     commit, holding only the folders specs/armature.yaml needs.
# The upstream swagger is never committed to this repository.
# Usage: hack/sync-specs.sh [--force]   (ARMATURE_SPECS_REPO overrides the clone URL)
set -euo pipefail

PINNED_COMMIT=a977c730fda43ab19c05373b32c7159d6f265e9a
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest="$root/specs/azure-rest-api-specs"
shared="$root/../shared/specs/azure-rest-api-specs"

if [[ "${1:-}" != "--force" && -e "$dest/specification" ]]; then
  exit 0
fi
candidates=()
[[ -n "${ARMATURE_SPECS:-}" ]] && candidates+=("$ARMATURE_SPECS")
candidates+=("$shared")
origin=$(git -C "$root" remote get-url origin 2>/dev/null || true)
[[ -n "$origin" && -d "$origin" ]] && candidates+=("$origin/../shared/specs/azure-rest-api-specs")
for c in "${candidates[@]}"; do
  if [[ -d "$c/specification" ]]; then
    rm -rf "$dest"
    ln -s "$(cd "$c" && pwd)" "$dest"
    echo "sync-specs: $dest -> $(cd "$c" && pwd)" >&2
    exit 0
  fi
done

repo=${ARMATURE_SPECS_REPO:-https://github.com/Azure/azure-rest-api-specs.git}
echo "sync-specs: sparse checkout of $repo at $PINNED_COMMIT into $dest" >&2
rm -rf "$dest"
git init -q "$dest"
git -C "$dest" remote add origin "$repo"
git -C "$dest" sparse-checkout init --cone
# The folders of every file in specs/armature.yaml, plus common-types.
folders=$(sed -n 's/^ *- *\(specification\/[^ ]*\)\/[^/]*\.json *$/\1/p' "$root/specs/armature.yaml" | sort -u)
git -C "$dest" sparse-checkout set specification/common-types $folders
if ! git -C "$dest" fetch -q --depth 1 --filter=blob:none origin "$PINNED_COMMIT"; then
  rm -rf "$dest"
  echo "sync-specs: could not fetch $repo. Point ARMATURE_SPECS at a checkout of azure-rest-api-specs (commit $PINNED_COMMIT) and run again." >&2
  exit 1
fi
git -C "$dest" checkout -q FETCH_HEAD
echo "sync-specs: done" >&2
