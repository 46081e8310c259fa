# The whole project is driven from here; `make` alone prints this help.
SHELL := /bin/bash
.DEFAULT_GOAL := help
export PATH := $(CURDIR)/.tools/bin:$(CURDIR)/node_modules/.bin:$(PATH)
# The services as libs/config/src/services.ts lists them (its services.test.ts checks this line).
SERVICES := gateway billing-ledger crawl agent monitor session-recorder browser-host

.PHONY: help toolchain install generate build lint chart infra migrate up down test test-unit test-e2e bench images cluster cluster-down test-k8s test-k8s-scale clean

help: ## Show the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "} {printf "  make %-10s %s\n", $$1, $$2}'

toolchain: ## Provision the pinned Node 24, pnpm and schemathesis into .tools/
	@scripts/toolchain.sh

# Debian's packages first: schemathesis's virtualenv needs python3-venv.
install: ## Install Debian packages (postgresql, nats-server, chromium, python3-venv), the toolchain, JS dependencies
	@scripts/infra.sh install
	@scripts/toolchain.sh
	@pnpm install --frozen-lockfile --reporter=silent

generate: install ## Regenerate protobuf, Prisma and the SDKs' code (committed; a clean tree stays clean)
	@buf generate
	@for s in $(SERVICES); do node libs/db/dist/cli.js generate services/$$s || exit 1; done
	@# Database functions: prisma/functions/*.sql must agree with the migrations (docs in libs/db/README.md).
	@for s in $(SERVICES); do node libs/db/dist/cli.js functions services/$$s || exit 1; done
	@# The SDKs' types and operations, from the gateway's OpenAPI document rendered offline (docs/clients.md).
	@tsc -b services/gateway && node clients/typescript/scripts/generate.mjs
	@.tools/python-sdk/bin/python clients/python/scripts/generate.py

build: install ## Type-check and compile every package
	@tsc -b tsconfig.json
	@# The web console (services/gateway/console): type-checked, then bundled into the gateway's dist.
	@tsc -p services/gateway/console/tsconfig.json
	@node services/gateway/node_modules/vite/bin/vite.js build --config services/gateway/console/vite.config.mts

lint: build ## Lint and format-check the tree, lint the protobuf contracts and check them against the last release
	@biome check .
	@node scripts/shape-check.mjs
	@buf lint
	@scripts/proto-breaking.sh

chart: ## Lint the Helm chart and validate its manifests against the Kubernetes schemas
	@scripts/helm-check.sh

infra: install ## Start Postgres and NATS JetStream on loopback (data under .data/)
	@scripts/infra.sh start

up: build ## Start the whole fleet on loopback; prints the URL and an API key (Ctrl-C stops it)
	@# Postgres and NATS are stopped on the way out only if this run started them.
	@if scripts/infra.sh status; then started=0; else started=1; fi; \
	  $(MAKE) --no-print-directory infra && \
	  WAP_STOP_INFRA=$$started node --enable-source-maps --disable-warning=ExperimentalWarning libs/fleet/dist/cli.js up

down: ## Stop the fleet, and Postgres and NATS if `make up` started them
	@-node libs/fleet/dist/cli.js down 2>/dev/null
	@if [ -f .data/infra-started-by-up ]; then scripts/infra.sh stop; rm -f .data/infra-started-by-up; fi

test: build infra ## Run the whole suite (unit, then end-to-end through the fleet)
	@scripts/test.sh

bench: build infra ## Run the benchmarks; each figure beside its goal (docs/benchmarks.md)
	@scripts/bench.sh

images: build ## Build the container images from Debian's packages and the build (root); prints names and sizes
	@scripts/images.sh

cluster: ## Start a single-node Kubernetes on this machine (root; built and cached outside the clone)
	@scripts/cluster.sh up

cluster-down: ## Stop the local Kubernetes and remove every trace of it
	@scripts/cluster.sh down

test-k8s: build ## Install the chart on the local cluster (make cluster) from fresh images and try it (root)
	@scripts/test-k8s.sh

test-k8s-scale: build ## The browser hosts on 100 simulated nodes (kwok) beside the local cluster (make cluster; root)
	@scripts/test-k8s-scale.sh

clean: ## Remove build output (keeps .data/)
	@rm -rf libs/*/dist services/*/dist clients/*/dist e2e/dist
