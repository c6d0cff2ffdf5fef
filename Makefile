# One-command entry points. `demo` and `test` install dependencies and build the CLI themselves
# when node_modules or dist/ is missing or older than its sources, so each is one command on a
# fresh machine. Everything users run is compiled JavaScript (dist/); tsx is for development.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin
DEPS := node_modules/.deps-stamp
BUILT := dist/.build-stamp
# every file under src and pipelines (the bin, src/cli/bin.cjs, is copied into the bundle too)
SOURCES := $(shell find src pipelines -type f 2>/dev/null)
# Settings file for the extract targets (a data repo points this at its own, e.g. config/production.json)
CONFIG ?= $(or $(ESTATE_ETL_CONFIG),config/sandbox.json)
ETL := node dist/bundle/main.js
RUN := $(ETL) run --config $(CONFIG)

.PHONY: setup demo test check check-unit walkthrough browser typecheck format format-check unit sandbox bench spend chaos clean nightly weekly plan status build

# `npm ci` installs exactly the lockfile (which lists every platform's optional packages).
$(DEPS): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $(DEPS)

$(BUILT): $(DEPS) $(SOURCES) tsconfig.json tsconfig.build.json scripts/bundle.mjs
	$(NODE_BIN)/tsc -p tsconfig.build.json
	node scripts/bundle.mjs
	@touch $(BUILT)

setup: $(BUILT)
build: $(BUILT)

## The main job: an in-process sandbox, a first night (the nightly and weekly sets), Parquet under data/, a summary.
demo: $(BUILT)
	$(ETL) demo --config config/sandbox.json

typecheck: $(DEPS)
	$(NODE_BIN)/tsc -p tsconfig.json --noEmit

format: $(DEPS)
	npm run --silent format

format-check: $(DEPS)
	npm run --silent format:check

# the test run builds dist/ itself (test/support/globalSetup.ts)
unit: $(DEPS)
	$(NODE_BIN)/vitest run

# The build and the format check side by side, then the tests (whose globalSetup finds dist/ fresh
# and does not build it again) beside the typecheck: the suite leaves about a quarter of the two
# cores idle (tests waiting on child processes, locks and timers), which the typecheck fills.
test: browser
	@$(MAKE) --no-print-directory -j2 $(BUILT) format-check
	@$(MAKE) --no-print-directory -j2 typecheck unit

## The fast loop (under a minute): the typecheck beside the unit tests of the toolkit's own code.
check: $(DEPS)
	@$(MAKE) --no-print-directory -j2 typecheck check-unit

check-unit: $(DEPS)
	@ESTATE_CHECK=1 $(NODE_BIN)/vitest run --reporter dot

## The documentation walked through, as a newcomer would (not in `make test`: vitest.config.ts):
## a repository built from the packed tarball, every recipe of the docs, every make target, a week,
## README's SQL, the GitHub Actions recipe, every example of every --help.
walkthrough: $(BUILT)
	@WALKTHROUGH=1 $(NODE_BIN)/vitest run

# the report tests open pages in Debian's chromium: installed when missing (as .ci/run did)
browser:
	@scripts/ensure-browser.sh

## Both simulated hosts on fixed ports (8701 platform, 8702 token) until stopped.
sandbox: $(BUILT)
	$(ETL) sandbox

## Benchmarks, compiled first (`dist-bench/`) so runs measure plain JS as the installed CLI runs it.
bench: $(BUILT)
	rm -rf dist-bench && $(NODE_BIN)/tsc -p tsconfig.bench.json
	node dist-bench/bench/main.js $(BENCH_ARGS)

## What change-driven refresh and learned costs save on the sandbox: runs their tests, which
## assert the targets and print the units (full re-pull against refresh; plan against charge).
spend: $(DEPS)
	$(NODE_BIN)/vitest run test/pipelines/refresh.test.ts test/pipeline/LearnedCosts.test.ts --reporter verbose

## The nightly-style suite: 50 SIGKILLs per source, figures in data/chaos.json; then kills aimed
## at every instant of a warehouse's creation and migration, 10 kills and resumes of two sources,
## 50 runs sharing a warehouse with the webhook receiver, every pipeline in every dialect, and
## the 30-day alerts backlog of a 50,000-property world (`make test` runs the dialect matrix's
## share and the backlog of a 10,000-property world, none of the rest: vitest.config.ts)
chaos: $(BUILT)
	$(NODE_BIN)/tsx tools/chaos.ts --kills 50
	CHAOS=full $(NODE_BIN)/vitest run test/reliability/creation-chaos.test.ts test/reliability/chaos-paged.test.ts test/reliability/chaos-fanout.test.ts test/cli/shared-warehouse.test.ts test/reliability/dialects.test.ts test/cli/backlog.test.ts

## Scheduled runs; CONFIG selects the settings file. `nightly` buys what changed (Monday to
## Saturday); `weekly` is the full pull (Sunday): --full-refresh forgets the incremental
## positions, so plots and leads are read in full. A full pull every night: schedule `make weekly`
## every night instead (docs/SCHEDULING.md).
nightly: $(BUILT)
	$(RUN) nightly --export parquet
weekly: $(BUILT)
	$(RUN) weekly --full-refresh --export parquet
## What a night and the week's full pull will cost (requests, pages, units, EUR); nothing paid is called.
plan: $(BUILT)
	$(ETL) plan nightly --config $(CONFIG)
	$(ETL) plan weekly --full-refresh --config $(CONFIG)
status: $(BUILT)
	$(ETL) status --config $(CONFIG)

## One target per pipeline: `make extract-<pipeline>` (`estate-etl list` names them), e.g.
## `make extract-plots-germany CONFIG=config/production.json`.
extract-%: $(BUILT)
	$(RUN) $*

clean:
	find data -mindepth 1 ! -name README.md -exec rm -rf {} +
	rm -rf dist .vitest-report.json
