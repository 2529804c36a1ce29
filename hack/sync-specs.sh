#!/usr/bin/env bash
# sync-specs.sh gives the repository its spec root, specs/azure-rest-api-specs,
# a folder holding specification/<service>/… in the upstream layout:
#   - a link to $ARMATURE_SPECS when set (a checkout of azure-rest-api-specs), or
#   - a merged folder when ../shared/specs exists (developers' machines and CI;
#     also beside the repository this one was cloned from, when that is a local
#     folder): specification/<service> links to the curated
#     ../shared/specs/azure-rest-api-specs first, then to the wide corpus
#     ../shared/specs/arm-stable-a977c730.tar.xz unpacked by hack/corpus.sh into
#     the cache (the newest stable api-version of 194 provider folders), or
#   - a sparse checkout of github.com/Azure/azure-rest-api-specs at the pinned
#     commit, holding only the folders specs/armature.yaml needs.
# All three are the same commit of azure-rest-api-specs. The upstream swagger is
# never committed to this repository.
# Your own services: a folder specs/local/<service>/… (the upstream layout
# below specification/) is added to the merged folder and to the sparse
# checkout as specification/<service>, before the upstream folders (a folder
# of the same name is merged with the upstream one; your files win). The
# spec root is rebuilt when the list of those folders changes. With
# ARMATURE_SPECS the spec root is your checkout: add them there.
# Usage: hack/sync-specs.sh [--force]   (ARMATURE_SPECS_REPO overrides the clone URL)
set -euo pipefail

PINNED_COMMIT=a977c730fda43ab19c05373b32c7159d6f265e9a
# Bump when the merged layout changes, so that existing spec roots are rebuilt.
LAYOUT=4
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest="$root/specs/azure-rest-api-specs"
local_dir="$root/specs/local"

# local_stamp names the files of specs/local (none: "none"), so that a spec
# root is rebuilt when they change.
local_stamp() {
  if [[ -d "$local_dir" ]]; then
    (cd "$local_dir" && find . -type f | LC_ALL=C sort | md5sum | cut -c1-32)
  else
    echo none
  fi
}

if [[ "${1:-}" != "--force" && -e "$dest/specification" ]]; then
  if [[ -L "$dest" && -n "${ARMATURE_SPECS:-}" ]]; then
    [[ -d "$local_dir" ]] && echo "sync-specs: ARMATURE_SPECS is set: specs/local is not added (add its folders to $ARMATURE_SPECS/specification)" >&2
    exit 0
  fi
  if [[ "$(cat "$dest/.layout" 2>/dev/null)" == "$LAYOUT" || -d "$dest/.git" ]] && [[ "$(cat "$dest/.local" 2>/dev/null || echo none)" == "$(local_stamp)" ]]; then
    exit 0
  fi
fi

if [[ -n "${ARMATURE_SPECS:-}" ]]; then
  if [[ ! -d "$ARMATURE_SPECS/specification" ]]; then
    echo "sync-specs: ARMATURE_SPECS=$ARMATURE_SPECS holds no specification/ folder" >&2
    exit 1
  fi
  rm -rf "$dest"
  ln -s "$(cd "$ARMATURE_SPECS" && pwd)" "$dest"
  echo "sync-specs: $dest -> $(cd "$ARMATURE_SPECS" && pwd)" >&2
  exit 0
fi

# merge SRC DST links every entry of SRC that DST lacks; where both hold a
# folder (the curated folder of a service and the corpus' one, e.g. compute's
# ComputeRP and DiskRP), the link is replaced by a real folder holding both.
merge() {
  local src=$1 dst=$2 e name
  for e in "$src"/* "$src"/.[!.]*; do
    [[ -e "$e" ]] || continue
    name=$(basename "$e")
    if [[ ! -e "$dst/$name" && ! -L "$dst/$name" ]]; then
      ln -s "$e" "$dst/$name"
    elif [[ -d "$e" && -d "$dst/$name" ]]; then
      if [[ -L "$dst/$name" ]]; then
        local first
        first=$(readlink "$dst/$name")
        rm "$dst/$name"
        mkdir "$dst/$name"
        merge "$first" "$dst/$name"
      fi
      merge "$e" "$dst/$name"
    fi
  done
}

shared_candidates=("$root/../shared/specs")
origin=$(git -C "$root" remote get-url origin 2>/dev/null || true)
[[ -n "$origin" && -d "$origin" ]] && shared_candidates+=("$origin/../shared/specs")
for s in "${shared_candidates[@]}"; do
  [[ -d "$s/azure-rest-api-specs/specification" ]] || continue
  s=$(cd "$s" && pwd)
  sources=("$s/azure-rest-api-specs")
  if [[ -f "$s/arm-stable-a977c730.tar.xz" ]]; then
    corpus=$(ARMATURE_CORPUS="$s/arm-stable-a977c730.tar.xz" "$root/hack/corpus.sh")
    sources+=("$corpus")
  fi
  mkdir -p "$root/specs"
  tmp=$(mktemp -d "$root/specs/.merge.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  mkdir -p "$tmp/specification"
  if [[ -d "$local_dir" ]]; then
    # Yours first: merge keeps the first of two files of one name.
    merge "$local_dir" "$tmp/specification"
    echo "$local_dir" >> "$tmp/.sources"
  fi
  for src in "${sources[@]}"; do
    merge "$src/specification" "$tmp/specification"
    echo "$src" >> "$tmp/.sources"
  done
  echo "$LAYOUT" > "$tmp/.layout"
  local_stamp > "$tmp/.local"
  rm -rf "$dest"
  mv -T "$tmp" "$dest"
  trap - EXIT
  echo "sync-specs: $dest merges $(paste -sd' ' "$dest/.sources") ($(ls "$dest/specification" | wc -l) services)" >&2
  exit 0
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
if [[ -d "$local_dir" ]]; then
  for d in "$local_dir"/*/; do
    name=$(basename "$d")
    if [[ -e "$dest/specification/$name" ]]; then
      # A folder upstream has too: link its files in, yours win.
      (cd "$d" && find . -type f) | while read -r f; do
        mkdir -p "$(dirname "$dest/specification/$name/$f")"
        ln -sfn "$d/$f" "$dest/specification/$name/$f"
      done
    else
      ln -s "${d%/}" "$dest/specification/$name"
    fi
  done
fi
local_stamp > "$dest/.local"
echo "sync-specs: done" >&2
