# The independent check of issue 28: real recordings kept OUTSIDE the
# repository, replayed against the emulator and never learned from
# (docs/conformance.md#the-independent-check). They are Azure Service
# Operator's Test_*_CRUD cassettes named below; nothing here copies them in.

# OUTSIDE_RECORDINGS are the 14 cassettes of the independent check, as
# v2/internal/controllers/recordings/<name>.yaml names them in ASO.
OUTSIDE_RECORDINGS = \
	Test_AKS_ManagedCluster_20250801_CRUD \
	Test_Cache_Redis_20241101_CRUD \
	Test_Compute_VM_20220301_CRUD \
	Test_DocumentDB_SQLDatabase_v20240815_CRUD \
	Test_KeyVault_Vault_20230701_CRUD \
	Test_Networking_LoadBalancer_20250301_CRUD \
	Test_Networking_NetworkSecurityGroup_20250301_CRUD \
	Test_Networking_PrivateDnsZone_20240601_CRUD \
	Test_Networking_VirtualNetwork_20250301_CRUD \
	Test_OperationalInsights_Workspace_v1api20250701_CRUD \
	Test_SQL_Server_v20250101_CRUD \
	Test_ServiceBus_Namespace_Standard_v1api20240101_CRUD \
	Test_Storage_StorageAccount_20250601_CRUD \
	Test_Web_Site_v20250501_CRUD

# OUTSIDE is a folder holding those cassettes; ASO_GIT, a git directory of
# Azure Service Operator (or a fork that tracks it) to extract them from
# into a temporary folder when OUTSIDE is not given.
OUTSIDE ?=
ASO_GIT ?=

.PHONY: conformance-outside
conformance-outside: ## Replay real recordings kept outside the repository (OUTSIDE=<folder of cassettes>, or ASO_GIT=<git dir of azure-service-operator> to extract the 14 of issue 28 to a temporary folder) against the emulator and generated/profiles; never learned from ("interactions matching: N/M"; docs/conformance.md).
	@dir="$(OUTSIDE)"; \
	  if [ -z "$$dir" ]; then \
	    if [ -z "$(ASO_GIT)" ]; then echo "conformance-outside: give OUTSIDE=<folder of cassettes> or ASO_GIT=<git dir of azure-service-operator>" >&2; exit 2; fi; \
	    dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; \
	    for n in $(OUTSIDE_RECORDINGS); do \
	      git --git-dir="$(ASO_GIT)" show "HEAD:v2/internal/controllers/recordings/$$n.yaml" > "$$dir/$$n.yaml" || exit 1; \
	    done; \
	  fi; \
	  $(GO) run ./cmd/fakearm conformance $(CONFORMANCE_FLAGS) "$$dir"
