#!/usr/bin/env bash
# demo.sh: what `make demo` shows until the operator exists — what the
# generator understood of the Azure specs, and what it wrote.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bold() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

bold "Kinds generated from specs/armature.yaml (go run ./cmd/armature inspect)"
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

bold "The local ARM emulator (cmd/fakearm), built from the same Descriptors (paths below are under /subscriptions/…/resourceGroups/demo)"
mkdir -p bin
go build -o bin/fakearm ./cmd/fakearm
log=$(mktemp)
cert=$(mktemp)
bin/fakearm --addr 127.0.0.1:0 --cert-out "$cert" --retry-after 1s >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$log" "$cert"' EXIT INT TERM
for _ in $(seq 50); do grep -q 'serving' "$log" && break; sleep 0.1; done
url=$(sed -n 's/.* at \(https:[^ ]*\)$/\1/p' "$log")
[ -n "$url" ] || { cat "$log"; exit 1; }
echo "  $(head -1 "$log")"
sub=/subscriptions/00000000-0000-0000-0000-000000000000
rg=$sub/resourceGroups/demo
sa=$rg/providers/Microsoft.Storage/storageAccounts/demomedia01
call() { # METHOD PATH API BODY -> prints the status line and the error code, if any
  local out status
  out=$(curl -sS --cacert "$cert" -H 'Authorization: Bearer demo' -H 'Content-Type: application/json' \
    -X "$1" -o /tmp/fakearm-body.$$ -D /tmp/fakearm-headers.$$ -w '%{http_code}' "$url$2?api-version=$3" ${4:+--data "$4"})
  status=$out
  local shown=${2#"$rg"}; printf '  %-6s %-66s → %s' "$1" "${shown:-…/resourceGroups/demo}" "$status"
  grep -qi '^location:' /tmp/fakearm-headers.$$ && printf ' (Location: …/%s)' "$(grep -i '^location:' /tmp/fakearm-headers.$$ | tr -d '\r' | sed 's|.*/||; s|?.*||')"
  grep -o '"code":"[^"]*"\|"target":"[^"]*"' /tmp/fakearm-body.$$ 2>/dev/null | sed 's/^"[a-z]*":"\(.*\)"$/ \1/' | tr -d '\n'  || true
  echo
  rm -f /tmp/fakearm-body.$$ /tmp/fakearm-headers.$$
}
call PUT "$rg" 2024-03-01 '{"location":"westeurope"}'
call PUT "$sa" 2023-05-01 '{"location":"westeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"},"properties":{"accessTier":"Hot"}}'
sleep 1
call GET "$sa" 2023-05-01
call GET "$sa" 2023-05-01
echo "  provisioningState: $(curl -sS --cacert "$cert" -H 'Authorization: Bearer demo' "$url$sa?api-version=2023-05-01" | grep -o '"provisioningState":"[^"]*"' | cut -d'"' -f4)"
call PATCH "$sa" 2023-05-01 '{"properties":{"accessTier":"Cool"}}'
call PUT "$sa" 2023-05-01 '{"location":"northeurope","kind":"StorageV2","sku":{"name":"Standard_LRS"}}'
call PUT "$sa/blobServices/default/containers/images" 2023-05-01 '{"properties":{"publicAccess":"None"}}'
call DELETE "$sa" 2023-05-01
call GET "$sa/blobServices/default/containers/images" 2023-05-01
echo "  requests by method and status: $(curl -sS --cacert "$cert" "$url/_admin/counters" | grep -o '"[A-Z]* [0-9]*":[0-9]*' | sort | tr '\n' ' ')"

echo
echo "Next: the operator and the webhook (see the open issues); 'make test' runs the tests."
