#!/usr/bin/env node
/**
 * The `estate-etl` bin (`scripts/bundle.mjs` copies it to `dist/bundle/main.js`; the CLI itself is
 * `main.mjs`). CommonJS, so that it runs before Node's ES module loader reads a file: that read
 * starts libuv's threadpool, whose size is fixed when it starts.
 *
 * The pool runs DuckDB's statements, file system calls and gzip. With Node's 4 threads, every
 * thread that runs a statement keeps memory of its own; with 1, a run's peak RSS measured about
 * 30 MB lower, with the same CPU and wall time (docs/BENCHMARKS.md). So the CLI starts the pool
 * with one thread, unless UV_THREADPOOL_SIZE is set (the user's value wins). The variable is taken
 * out again once the pool runs, so processes the CLI starts do not inherit it.
 */
"use strict"
if (process.env.UV_THREADPOOL_SIZE === undefined || process.env.UV_THREADPOOL_SIZE === "") {
  // Assumed (measured on this project's sourcing runs): one thread is enough for a run's landing
  process.env.UV_THREADPOOL_SIZE = "1"
  // the first request to the pool starts it, reading the variable once
  require("node:fs").access(__filename, () => {})
  delete process.env.UV_THREADPOOL_SIZE
}
import("./main.mjs").catch((error) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
