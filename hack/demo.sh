#!/usr/bin/env bash
# demo.sh: what `make demo` runs after generating: what the generator
# understood of the Azure specs, then the whole system (hack/demo).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bold() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

bold "What the generator made of specs/armature.yaml (go run ./cmd/armature inspect)"
go run ./cmd/armature inspect

bold "StorageAccount: the classes of a few properties, and the rule that decided each"
go run ./cmd/armature inspect --kind StorageAccount --properties |
  grep -E '^  (location|extendedLocation|sku|sku\.name|kind|properties\.accessTier|properties\.isHnsEnabled|properties\.primaryEndpoints|properties\.provisioningState|id) '

bold "What a create-only field becomes in the CRD (CEL transition rule)"
grep -m1 -A1 'rule: has(self.location)' generated/crds/storage.azure.armature.dev_storageaccounts.yaml | sed 's/^/  /'

bold "Generated files"
printf '  %-10s %s\n' "Go:" "$(find generated/apis -name '*.go' | wc -l) files in $(find generated/apis -mindepth 2 -maxdepth 2 -type d | wc -l) packages"
printf '  %-10s %s\n' "CRDs:" "$(ls generated/crds | wc -l) files, largest $(ls -S generated/crds | head -1) ($(stat -c %s "generated/crds/$(ls -S generated/crds | head -1)") bytes; limit 262144)"
printf '  %-10s %s\n' "Docs:" "$(ls generated/docs | tr '\n' ' ')"

bold "Now the whole system: control plane, ARM emulator, operator (go run ./hack/demo)"
assets=$(hack/setup-envtest.sh)
KUBEBUILDER_ASSETS="$assets" go run ./hack/demo
