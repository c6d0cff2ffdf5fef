# One-command entry points. `demo` and `test` install dependencies themselves
# when node_modules is missing or older than the lockfile.
SHELL := /bin/bash
NODE_BIN := node_modules/.bin
TSX := $(NODE_BIN)/tsx
CLI := $(TSX) src/cli/main.ts
DEPS := node_modules/.deps-stamp

.PHONY: setup demo test typecheck unit sandbox bench clean nightly

$(DEPS): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $(DEPS)

setup: $(DEPS)

demo: $(DEPS)
	$(CLI) demo

typecheck: $(DEPS)
	$(NODE_BIN)/tsc -p tsconfig.json --noEmit

unit: $(DEPS)
	$(NODE_BIN)/vitest run

test: typecheck unit

sandbox: $(DEPS)
	$(CLI) sandbox

bench: $(DEPS)
	$(TSX) bench/main.ts

clean:
	find data -mindepth 1 ! -name README.md -exec rm -rf {} +
	rm -rf dist .vitest-report.json
