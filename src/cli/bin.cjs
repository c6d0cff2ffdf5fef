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
 *
 * It also keeps undici's HTTP parser (llhttp, WebAssembly) on V8's baseline compiler (Liftoff).
 * V8 recompiles the parser's one large function with its optimizing compiler after ~100
 * responses, which cost every `run` ~0.25-0.3 s of CPU on a background thread; Liftoff parses
 * 10,000 responses of 100 KB in ~35 ms. The tiering budget (not `--liftoff-only`, which Node 24
 * ignores once started) is raised to V8's largest, so a pull that parses gigabytes still gets the
 * optimized code. A `--wasm-tiering-budget` given to node wins.
 */
"use strict"
if (process.env.UV_THREADPOOL_SIZE === undefined || process.env.UV_THREADPOOL_SIZE === "") {
  // Assumed (measured on this project's sourcing runs): one thread is enough for a run's landing
  process.env.UV_THREADPOOL_SIZE = "1"
  // the first request to the pool starts it, reading the variable once
  require("node:fs").access(__filename, () => {})
  delete process.env.UV_THREADPOOL_SIZE
}
if (!process.execArgv.some((arg) => arg.startsWith("--wasm-tiering-budget"))) {
  // Assumed (measured: docs/BENCHMARKS.md, stop 49): the optimized parser never pays back its compile
  require("node:v8").setFlagsFromString("--wasm-tiering-budget=2147483647")
}
import("./main.mjs").catch((error) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
