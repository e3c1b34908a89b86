# E3 — the two set-up commands are `make up` and `make test` (see README.md).
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
E3 := $(VENV)/bin/e3
PYTEST_ARGS ?=

BENCH_ARGS ?=
INGEST_ARGS ?=
AGENT_ARGS ?=
DATAPLANE_ARGS ?=
RACK_ARGS ?=
ORCHESTRATOR_ARGS ?=
API_ARGS ?=
METRICS_ARGS ?=

.PHONY: system-deps system-deps-test chaos fuzz bench bench-ui bench-api bench-metrics bench-placement bench-ingest bench-agent bench-orchestrator bench-orchestrator-rack bench-dataplane bench-front-intake up test test-backend test-frontend test-e2e test-compose test-agents agents backend frontend lock clean distclean help

help:
	@echo "make up      run the control plane (embedded Postgres/Redis unless DATABASE_URL/REDIS_URL are set)"
	@echo "make test    run every test suite"
	@echo "make chaos   the fault-injection suite alone (part of make test), printing recovery times"
	@echo "make bench   run the benchmarks (figures and ratios): placement (BENCH_ARGS=\"--servers 100,1000\"),"
	@echo "             heartbeat ingest (INGEST_ARGS=\"--servers 100\"), agent overhead (AGENT_ARGS=\"--seconds 10\"),"
	@echo "             orchestrator decision latency in memory and from the controller's socket under the ingest"
	@echo "             load (ORCHESTRATOR_ARGS=\"--servers 1000\"; the 10,000-server real run takes minutes), GET /metrics with 5,000"
	@echo "             nodes and 20,000 instances reporting (METRICS_ARGS=\"--requests 200\"), and the ingest front's"
	@echo "             C++ intake per heartbeat on one core (FRONT_INTAKE_ARGS=\"--servers 1000 --seconds 10\")"
	@echo "make bench-ui  the UI in Chromium: the live dashboard's frames and heartbeat → pixel (a synthetic channel), and the"
	@echo "             placement view of a 10,000-server cluster: first paint, pan and zoom frames, search (SERVERS=10000)"
	@echo "make bench-api  REST API under load: read p99 at 200 req/s, 503 refusals at 400 req/s, hangs with"
	@echo "             1,000 requests in flight (API_ARGS=\"--seconds 10 --in-flight 1000\"); not in make bench"
	@echo "make bench-dataplane  (root) packets/s through e3-nic beside raw af_packet, memif messages/s"
	@echo "             (DATAPLANE_ARGS=\"--seconds 5\"), then on the emulated rack: ECMP and failover over a"
	@echo "             type2 server's NICs, NFV-FIN HCM vs hosts (RACK_ARGS=\"--seconds 20\"); not in make bench"
	@echo "make bench-orchestrator-rack  (root) on the emulated rack: kvs migration and failover times, the"
	@echo "             paper's Figure 7 (gateway on a SmartNIC, before/after the orchestrator; ORCHESTRATOR_RACK_ARGS=\"--seconds 20\")"
	@echo "make reproduce  the paper's evaluation: every experiment (e3 experiment run all; REPRODUCE_ARGS=\"--quick\"),"
	@echo "             results/NAME/ (data.csv, plot.png, summary.json), then docs/evaluation.md; root for the rack ones"
	@echo "make fuzz    fuzz the data plane's frame parser (libFuzzer; FUZZ_SECONDS=60; needs clang)"
	@echo "make lock    re-pin the backend's dependencies into backend/requirements.lock"

up: system-deps backend frontend agents
	$(E3) up

test: system-deps-test backend frontend test-backend test-agents chaos test-frontend test-e2e test-compose

# --- system packages ---------------------------------------------------------
# One list (scripts/install-system-deps): as root it installs what is missing, else it prints the
# command to run and stops the build before it starts. Silent and quick when all is there.
system-deps:
	@bash scripts/install-system-deps up

system-deps-test:
	@bash scripts/install-system-deps test

bench: bench-placement bench-ingest bench-agent bench-orchestrator bench-metrics bench-front-intake bench-ui

bench-ui: backend frontend
	cd frontend && npm run build && DIST=dist node e2e/dashboard.bench.mjs && \
		E3_BIN=$(abspath $(E3)) node e2e/cluster_scale.bench.mjs

bench-placement: backend
	$(E3) bench placement $(BENCH_ARGS)

bench-ingest: backend
	$(E3) bench ingest $(INGEST_ARGS)

bench-agent: backend agents
	$(E3) bench agent $(AGENT_ARGS)

bench-orchestrator: backend
	$(E3) bench orchestrator --section decision,real $(ORCHESTRATOR_ARGS)

bench-api: backend
	$(E3) bench api $(API_ARGS)

bench-metrics: backend
	$(E3) bench metrics $(METRICS_ARGS)

bench-front-intake: agents
	$(AGENTS_BUILD)/e3-ingest/e3-ingest-bench $(FRONT_INTAKE_ARGS)
	$(AGENTS_BUILD)/e3-ingest/e3-detector-bench

# The paper's evaluation (docs/reproduce.md). The report is written even when an experiment crashed (it says
# so); the exit status is still the run's.
.PHONY: reproduce
reproduce: backend agents
	$(E3) experiment run all $(REPRODUCE_ARGS); status=$$?; $(E3) experiment report && exit $$status

# Root only (an emulated rack per section), so not part of `make bench`.
bench-orchestrator-rack: backend agents
	$(E3) bench orchestrator --section migration,figure7 $(ORCHESTRATOR_RACK_ARGS)

# Root only (network namespaces e3b-*), so not part of `make bench`.
bench-dataplane: backend agents
	$(E3) bench dataplane $(DATAPLANE_ARGS)
	$(E3) bench rack $(RACK_ARGS)

# --- backend -------------------------------------------------------------
$(VENV)/bin/activate: | system-deps
	python3 -m venv $(VENV)

$(VENV)/.installed: $(VENV)/bin/activate backend/pyproject.toml backend/requirements.lock
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -c backend/requirements.lock -e 'backend[dev]'
	touch $@

# gRPC code for the agent contract (proto/), generated at build time into backend/e3/rpc/gen/.
backend/e3/rpc/gen/.stamp: $(VENV)/.installed $(wildcard proto/e3/*/v1/*.proto)
	cd backend && ../$(VENV)/bin/python -m e3.rpc.codegen
	touch $@

backend: $(VENV)/.installed backend/e3/rpc/gen/.stamp

lock: $(VENV)/bin/activate
	$(PIP) install --quiet -e 'backend[dev]'
	$(PIP) freeze --exclude-editable | grep -v '^-e' > backend/requirements.lock

test-backend: backend agents  # the integration tests run real e3-agent processes
	cd backend && ../$(VENV)/bin/pytest -m "not chaos" $(PYTEST_ARGS)

# Faults injected into real components (docs/reliability.md), each test printing its recovery time.
chaos: backend agents
	cd backend && ../$(VENV)/bin/pytest -m chaos -s -q $(CHAOS_ARGS)

# --- frontend ------------------------------------------------------------
frontend/node_modules/.package-lock.json: frontend/package.json frontend/package-lock.json | system-deps
	cd frontend && npm ci --no-audit --no-fund
	touch $@

frontend/dist/index.html: frontend/node_modules/.package-lock.json $(shell find frontend/src frontend/index.html frontend/vite.config.ts -type f 2>/dev/null)
	cd frontend && npm run build

frontend: frontend/dist/index.html

test-frontend: frontend/node_modules/.package-lock.json
	cd frontend && npm run check:api && npm run typecheck && npm test

# End to end: Debian Chromium (never a downloaded one) against the real backend started by `e3 up`.
test-e2e: system-deps-test backend frontend
	cd frontend && E3_BIN=$(abspath $(E3)) npm run e2e

# --- C: agents/ (libe3svc, e3-agent) ------------------------------------------
AGENTS_BUILD := build/agents

agents: system-deps
	cmake -S agents -B $(AGENTS_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(AGENTS_BUILD) -j2

test-agents: agents
	ctest --test-dir $(AGENTS_BUILD) --output-on-failure

# Fuzzing (not in CI): libFuzzer + ASan on the data plane's frame parser, FUZZ_SECONDS long.
FUZZ_SECONDS ?= 60
FUZZ_BUILD := build/fuzz
fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang (libFuzzer): apt-get install clang"; exit 1; }
	mkdir -p $(FUZZ_BUILD)/corpus
	clang -g -O1 -fsanitize=fuzzer,address,undefined -I agents/libe3dp/include -I agents/libe3svc/include \
	  agents/libe3dp/fuzz/fuzz_pkt.c agents/libe3dp/src/pkt.c -o $(FUZZ_BUILD)/fuzz_pkt
	$(FUZZ_BUILD)/fuzz_pkt -max_total_time=$(FUZZ_SECONDS) -max_len=2048 $(FUZZ_BUILD)/corpus

# --- docker-compose.yml ----------------------------------------------------
# No Docker engine here, but `docker compose config` needs none: use the plugin when present,
# else build the same Compose CLI from the Go module proxy once into .tools/.
COMPOSE_VERSION := v2.29.7
COMPOSE_BIN := .tools/bin/docker-compose

$(COMPOSE_BIN):
	@command -v go >/dev/null || { echo "test-compose needs Go (or the docker compose plugin)"; exit 1; }
	mkdir -p .tools/bin
	GOBIN=$(abspath .tools/bin) go install github.com/docker/compose/v2/cmd@$(COMPOSE_VERSION)
	mv .tools/bin/cmd $@

test-compose: system-deps-test
	@if docker compose version >/dev/null 2>&1; then docker compose -f docker-compose.yml config -q; \
	else $(MAKE) --no-print-directory $(COMPOSE_BIN) && $(COMPOSE_BIN) -f docker-compose.yml config -q; fi
	@echo "docker-compose.yml: accepted by docker compose config"

clean:
	rm -rf frontend/dist backend/build backend/*.egg-info
	find backend -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV) frontend/node_modules .e3 .tools
