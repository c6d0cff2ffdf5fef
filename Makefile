# One-command entry points. `demo` and `test` install dependencies themselves when
# node_modules is missing or older than the lockfile, so each is one command on a fresh machine.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin
TSX := $(NODE_BIN)/tsx
DEPS := node_modules/.deps-stamp
# Settings file for the extract targets (a data repo points this at its own, e.g. config/production.json)
CONFIG ?= config/sandbox.json
ETL := $(TSX) src/cli/main.ts
RUN := $(ETL) run --config $(CONFIG)

.PHONY: setup demo test typecheck unit sandbox bench chaos clean nightly weekly plan status build \
	extract-references extract-plots extract-sourcing extract-sourcing-details extract-resolve \
	extract-seller-leads extract-premises extract-time-series extract-distributions extract-analysis \
	extract-alerts extract-alerts-search extract-feeds extract-properties extract-properties-match \
	extract-properties-search extract-comparables

# `npm install` follows the committed lockfile. (`npm ci` is not used: the npm on these machines
# writes lockfiles without other platforms' optional packages and then refuses them in `npm ci`.)
$(DEPS): package.json package-lock.json
	npm install --no-audit --no-fund --loglevel=error
	@touch $(DEPS)

setup: $(DEPS)

## The main job: an in-process sandbox, the nightly set, Parquet under data/, a summary.
demo: $(DEPS)
	$(ETL) demo --config config/sandbox.json

typecheck: $(DEPS)
	$(NODE_BIN)/tsc -p tsconfig.json --noEmit

unit: $(DEPS)
	$(NODE_BIN)/vitest run

test: typecheck unit

## Both simulated hosts on fixed ports (8701 platform, 8702 token) until stopped.
sandbox: $(DEPS)
	$(ETL) sandbox

## Benchmarks, compiled first (`dist-bench/`) so runs measure plain JS as the installed CLI runs it.
bench: $(DEPS)
	rm -rf dist-bench && $(NODE_BIN)/tsc -p tsconfig.bench.json
	node dist-bench/bench/main.js $(BENCH_ARGS)

## The full chaos harness: 50 SIGKILLs per source, figures in data/chaos.json
chaos: $(DEPS)
	$(TSX) tools/chaos.ts --kills 50

build: $(DEPS)
	npm run build

## Scheduled runs; CONFIG selects the settings file.
nightly: $(DEPS)
	$(RUN) nightly --export parquet
weekly: $(DEPS)
	$(RUN) weekly --export parquet
plan: $(DEPS)
	$(ETL) plan nightly --config $(CONFIG)
status: $(DEPS)
	$(ETL) status --config $(CONFIG)

## One target per pipeline, to copy into a data repository's Makefile.
extract-references: $(DEPS) ; $(RUN) references
extract-plots: $(DEPS) ; $(RUN) plots-germany
extract-sourcing: $(DEPS) ; $(RUN) sourcing-search
extract-sourcing-details: $(DEPS) ; $(RUN) sourcing-properties
extract-resolve: $(DEPS) ; $(RUN) sourcing-resolve
extract-seller-leads: $(DEPS) ; $(RUN) seller-leads
extract-premises: $(DEPS) ; $(RUN) premises-search
extract-time-series: $(DEPS) ; $(RUN) market-time-series
extract-distributions: $(DEPS) ; $(RUN) market-distributions
extract-analysis: $(DEPS) ; $(RUN) market-analysis
extract-alerts: $(DEPS) ; $(RUN) alerts
extract-alerts-search: $(DEPS) ; $(RUN) alerts-search
extract-feeds: $(DEPS) ; $(RUN) alert-feeds
extract-properties: $(DEPS) ; $(RUN) properties-by-id
extract-properties-match: $(DEPS) ; $(RUN) properties-match
extract-properties-search: $(DEPS) ; $(RUN) properties-search
extract-comparables: $(DEPS) ; $(RUN) comparables

clean:
	find data -mindepth 1 ! -name README.md -exec rm -rf {} +
	rm -rf dist .vitest-report.json
