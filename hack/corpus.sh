#!/usr/bin/env bash
# corpus.sh unpacks the wide corpus (the newest stable api-version of 194
# provider folders of azure-rest-api-specs, ../shared/specs/ARM-STABLE.md)
# once into the cache and prints the folder: a spec root holding
# specification/…, for `armature sweep`.
#
#   hack/corpus.sh            print the folder, unpacking it first if needed
#
# The cache is ${ARMATURE_CACHE_DIR:-~/.cache/armature}; never the repository.
# Unpacking is atomic: into a temporary folder beside the target, then a
# rename, and a marker file (.unpacked) says the folder is complete. The
# archive is ARMATURE_CORPUS when set, else ../shared/specs/ relative to the
# repository root.
set -euo pipefail

name=arm-stable-a977c730
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
archive=${ARMATURE_CORPUS:-$root/../shared/specs/$name.tar.xz}
cache=${ARMATURE_CACHE_DIR:-${HOME:?HOME is not set}/.cache/armature}
dest="$cache/$name"
marker="$dest/.unpacked"

if [[ -f "$marker" ]]; then
  echo "$dest"
  exit 0
fi
if [[ ! -f "$archive" ]]; then
  echo "corpus.sh: $archive not found (set ARMATURE_CORPUS to the archive)" >&2
  exit 1
fi
case "$(realpath -m "$cache")/" in
  "$(realpath "$root")"/*) echo "corpus.sh: the cache $cache is inside the repository; set ARMATURE_CACHE_DIR elsewhere" >&2; exit 1 ;;
esac
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/.$name.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "corpus.sh: unpacking $archive into $dest" >&2
tar -xJf "$archive" -C "$tmp"
if [[ ! -d "$tmp/specification" ]]; then
  echo "corpus.sh: $archive holds no specification/ folder" >&2
  exit 1
fi
date -u +%Y-%m-%dT%H:%M:%SZ > "$tmp/.unpacked"
if ! mv -T "$tmp" "$dest" 2>/dev/null; then
  # Another run finished first (or a stale, incomplete folder is there).
  if [[ -f "$marker" ]]; then
    echo "$dest"
    exit 0
  fi
  rm -rf "$dest"
  mv -T "$tmp" "$dest"
fi
trap - EXIT
echo "$dest"
