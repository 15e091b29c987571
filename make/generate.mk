# Code generation from the .proto files, with the tools of tools.mk.

# --- protobuf code generation ---
# adapters/codec-pb/internal/pb (the index format) and adapters/grpc/vectrapb
# (Vectra's gRPC service). protoc comes from Debian's protobuf-compiler
# (installed when missing); protoc-gen-go from the Go module proxy, pinned to
# the google.golang.org/protobuf version codec-pb requires, and
# protoc-gen-go-grpc pinned below, both installed into bin/.
PB_DIR := adapters/codec-pb/internal/pb
GRPC_DIR := adapters/grpc/vectrapb
PROTOC_GEN_GO_VERSION := $(shell awk '{ for (i = 1; i < NF; i++) if ($$i == "google.golang.org/protobuf") { print $$(i+1); exit } }' adapters/codec-pb/go.mod)
PROTOC_GEN_GO := bin/protoc-gen-go-$(PROTOC_GEN_GO_VERSION)/protoc-gen-go
PROTOC_GEN_GO_GRPC_VERSION := v1.6.1
PROTOC_GEN_GO_GRPC := bin/protoc-gen-go-grpc-$(PROTOC_GEN_GO_GRPC_VERSION)/protoc-gen-go-grpc
# protoc's own version is written into a header comment only; the check ignores that line.
PB_HEADER_VERSION := ^//[[:space:]]+(-[[:space:]]+)?protoc[[:space:]]

$(PROTOC_GEN_GO):
	@echo "==> protoc-gen-go $(PROTOC_GEN_GO_VERSION) into $(@D)"
	@GOBIN=$(CURDIR)/$(@D) GOWORK=off $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)

$(PROTOC_GEN_GO_GRPC):
	@echo "==> protoc-gen-go-grpc $(PROTOC_GEN_GO_GRPC_VERSION) into $(@D)"
	@GOBIN=$(CURDIR)/$(@D) GOWORK=off $(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@$(PROTOC_GEN_GO_GRPC_VERSION)

## chromium: Debian's headless Chromium, which the browser tests (wasmbrowsertest,
## chromedp) drive. Installed when missing.
.PHONY: chromium
chromium:
	@command -v chromium >/dev/null || { \
		echo "==> installing Chromium (Debian chromium)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq chromium >/dev/null; }

.PHONY: protoc
protoc:
	@command -v protoc >/dev/null || { \
		echo "==> installing protoc (Debian protobuf-compiler)"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		$$sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$sudo apt-get install -y -qq protobuf-compiler >/dev/null; }

# protoc-run generates the index format's code into $(1) and the gRPC
# service's into $(2), as one shell command.
protoc-run = protoc -I $(PB_DIR) --plugin=protoc-gen-go=$(PROTOC_GEN_GO) \
		--go_out=$(1) --go_opt=paths=source_relative index.proto && \
	protoc -I $(GRPC_DIR) --plugin=protoc-gen-go=$(PROTOC_GEN_GO) --plugin=protoc-gen-go-grpc=$(PROTOC_GEN_GO_GRPC) \
		--go_out=$(2) --go_opt=paths=source_relative \
		--go-grpc_out=$(2) --go-grpc_opt=paths=source_relative vectra_service.proto

## generate: regenerate the Go code of the index format and of the gRPC service from their .proto files.
generate: protoc $(PROTOC_GEN_GO) $(PROTOC_GEN_GO_GRPC)
	$(call protoc-run,$(PB_DIR),$(GRPC_DIR))

## generate-check: fail when the committed generated code is not what generate makes.
generate-check: protoc $(PROTOC_GEN_GO) $(PROTOC_GEN_GO_GRPC)
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; mkdir -p "$$tmp/pb" "$$tmp/grpc"; \
		$(call protoc-run,"$$tmp/pb","$$tmp/grpc") && \
		for f in $(PB_DIR)/index.pb.go:pb/index.pb.go $(GRPC_DIR)/vectra_service.pb.go:grpc/vectra_service.pb.go \
				$(GRPC_DIR)/vectra_service_grpc.pb.go:grpc/vectra_service_grpc.pb.go; do \
			committed=$${f%%:*}; fresh="$$tmp/$${f#*:}"; \
			if ! diff -u <(grep -Ev '$(PB_HEADER_VERSION)' $$committed) <(grep -Ev '$(PB_HEADER_VERSION)' "$$fresh"); then \
				echo "$$committed is stale: run make generate and commit it"; exit 1; fi; \
		done
	@echo "generated code is current"
