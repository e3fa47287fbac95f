# aios-host — `make run` to try it, `make test` to check it.
GO      ?= go
BIN     := bin/aios-host
SAMPLES := $(sort $(wildcard samples/*/build.sh))

.PHONY: all build samples run test test-wasmtime cross bench bench-goals fmt vet deps clean

all: build

## build: compile the aios-host binary into bin/
build:
	$(GO) build -o $(BIN) ./cmd/aios-host

## deps: install missing system packages, Go modules and npm packages
deps:
	./scripts/deps.sh

## samples: build every sample provider from source (samples/*/build.sh, in name order)
samples: deps
	@set -e; for s in $(SAMPLES); do echo "== $$s"; bash "$$s"; done

## run: build the samples and the binary, then serve the sample tools
run: samples build
	./$(BIN) run

## test: install what is needed, build the samples, run every test with the race detector
test: deps samples
	$(MAKE) cross
	$(GO) test -race -timeout 20m ./...
	$(MAKE) test-wasmtime

## cross: the other platforms still build (README "Platforms"): go vet, tests included, for macOS,
## FreeBSD and Windows (about 20 s with a warm build cache; 11 min cold, all dependencies compiled for three more platforms, on the 2-core VM)
cross:
	GOOS=darwin GOARCH=arm64 $(GO) vet ./...
	GOOS=freebsd GOARCH=amd64 $(GO) vet ./...
	GOOS=windows GOARCH=amd64 $(GO) vet ./...

## test-wasmtime: the wasmtime engine (cgo, build tag wasmtime): its packages, the differential tests and the conformance rows
## (the tagged rerun of the engine-neutral tests is left to `make test`; about 2 min here)
test-wasmtime: deps samples
	CGO_ENABLED=1 $(GO) test -tags wasmtime -race ./component/wasmtime/
	CGO_ENABLED=1 $(GO) test -tags wasmtime -race -run 'Wasmtime|Differential|Engine|Conformance' ./runtimes/wasm/ ./conformance/
	CGO_ENABLED=1 $(GO) test -tags wasmtime -race -run 'TestEngineWiring|TestComponentMemoryLimitFromConfig|TestUntrustedComponentsConfig' ./cmd/aios-host/

## bench: run every benchmark once (no tests)
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-goals: the benchmarks with goals in the issues, one comparable pass
bench-goals: samples
	scripts/bench-goals.sh

## fmt: gofmt every Go file
fmt:
	gofmt -w $$(git ls-files -co --exclude-standard '*.go')

## vet: go vet every package
vet:
	$(GO) vet ./...

## clean: remove build outputs
clean:
	rm -rf bin build
