#!/usr/bin/env bash
# terraform-facts.sh regenerates specs/terraform/azurerm.json with hack/tffacts
# from a tree of hashicorp/terraform-provider-azurerm at the pinned commit:
#   - AZURERM_DIR: a checked-out tree, used as it is; or
#   - AZURERM_GITDIR: a git directory (a mirror): its commit is extracted with
#     git archive into a temporary folder outside the repository (only the
#     paths the tool reads: a partial mirror may lack other objects); else
#   - a clone of https://github.com/hashicorp/terraform-provider-azurerm at the
#     pinned commit in a cache folder outside the repository.
# Nothing of azurerm is ever committed: only the facts file.
set -euo pipefail

PINNED_COMMIT=69697b7fe6a923fc89e88f386bc95c3ed1ee2ec6
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
paths=(internal vendor/github.com/hashicorp/go-azure-sdk/resource-manager vendor/github.com/hashicorp/go-azure-helpers go.mod)

if [[ -n "${AZURERM_DIR:-}" ]]; then
  dir=$AZURERM_DIR
  commit=$(git -C "$dir" rev-parse HEAD 2>/dev/null || echo "$PINNED_COMMIT")
elif [[ -n "${AZURERM_GITDIR:-}" ]]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/azurerm.XXXXXX")
  trap 'rm -rf "$dir"' EXIT
  commit=$(git --git-dir "$AZURERM_GITDIR" rev-parse HEAD)
  echo "terraform-facts: extracting $commit of $AZURERM_GITDIR into $dir" >&2
  git --git-dir "$AZURERM_GITDIR" archive "$commit" -- "${paths[@]}" | tar -x -C "$dir"
else
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/armature/terraform-provider-azurerm
  if [[ ! -d "$cache/.git" ]]; then
    echo "terraform-facts: cloning terraform-provider-azurerm into $cache" >&2
    mkdir -p "$cache"
    git -C "$cache" init -q
    git -C "$cache" remote add origin https://github.com/hashicorp/terraform-provider-azurerm
  fi
  if [[ "$(git -C "$cache" rev-parse HEAD 2>/dev/null)" != "$PINNED_COMMIT" ]]; then
    git -C "$cache" fetch -q --depth 1 origin "$PINNED_COMMIT"
    git -C "$cache" checkout -q FETCH_HEAD
  fi
  dir=$cache
  commit=$PINNED_COMMIT
fi

cd "$root"
go run ./hack/tffacts --azurerm "$dir" --commit "$commit" --out specs/terraform/azurerm.json --quiet
