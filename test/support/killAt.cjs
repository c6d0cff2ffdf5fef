"use strict"
/**
 * A preload for chaos tests (`node -r test/support/killAt.cjs dist/bundle/main.js ...`): it aims a
 * SIGKILL at one instant of the process's work on its DuckDB file and writes where the kill landed
 * to a log, so a test can prove the instant it aimed at was the one it hit.
 *
 * `ESTATE_KILL_AT` (JSON) names the instant:
 * - `{ "at": "create", "nth": 1 }`: the nth opening of a database file (`DuckDBInstance.create`);
 * - `{ "at": "sql", "match": "^COMMIT$", "nth": 2 }`: the nth statement matching the regular
 *   expression (`DuckDBConnection.run`: DDL, writes, BEGIN / COMMIT);
 * - `{ "at": "close", "nth": 1 }`: the nth close of a database file (its checkpoint of the WAL);
 * - `{ "at": "fs", "call": "linkSync", "nth": 1 }`: the nth call of a `node:fs` function (`before` / `after` only);
 * - `{ "at": "file", ... }` and `{ "at": "time" }`: see below;
 *
 * and `phase` when: `before` (the statement is not sent; the process writes `@@kill-me <label>` on
 * stderr and waits for the parent's SIGKILL), `after` (it returned; the same wait) or `during`
 * (sent, and a watchdog thread SIGKILLs the process `delayUs` microseconds later, writing first
 * whether the call had returned by then). `ESTATE_KILL_LOG` is the log file (appended, one line
 * per event: `aimed <label> <phase>`, then `killed +<us>us returned=<0|1>` for `during`).
 *
 * The package is CommonJS and the CLI loads it with `require` (`src/load/DuckDbApi.ts`), so the
 * classes patched here are the ones the CLI uses.
 */
const fs = require("node:fs")
const { Worker } = require("node:worker_threads")
const duckdb = require("@duckdb/node-api")

const spec = JSON.parse(process.env.ESTATE_KILL_AT || "{}")
const logFile = process.env.ESTATE_KILL_LOG
const note = (line) => logFile && fs.appendFileSync(logFile, `${line}\n`)
const counts = { create: 0, sql: 0, close: 0 }
const match = spec.match ? new RegExp(spec.match) : undefined

/** Blocks this thread (the event loop with it) until the parent's SIGKILL arrives. */
const waitForKill = (label) => {
  note(`aimed ${label} ${spec.phase}`)
  fs.writeSync(2, `\n@@kill-me ${label}\n`)
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000)
  note(`not killed ${label}`)
}

/**
 * A thread, started with the process so it is waiting by the time it is needed, that kills the
 * process `delayUs` after `arm()`, whatever the main thread is doing.
 */
const watchdog = () => {
  const shared = new Int32Array(new SharedArrayBuffer(8))
  const worker = new Worker(
    `const { workerData: { shared, delayUs, logFile } } = require("node:worker_threads")
     const fs = require("node:fs")
     while (Atomics.wait(shared, 0, 0, 100) === "timed-out");
     const start = process.hrtime.bigint()
     while (process.hrtime.bigint() - start < BigInt(delayUs) * 1000n);
     const us = Number((process.hrtime.bigint() - start) / 1000n)
     fs.appendFileSync(logFile, "killed +" + us + "us returned=" + Atomics.load(shared, 1) + "\\n")
     process.kill(process.pid, "SIGKILL")`,
    { eval: true, workerData: { shared, delayUs: spec.delayUs ?? 0, logFile } }
  )
  worker.unref()
  return {
    arm: (label) => {
      note(`aimed ${label} during`)
      Atomics.store(shared, 0, 1)
      Atomics.notify(shared, 0)
    },
    returned: () => Atomics.store(shared, 1, 1)
  }
}
const dog = spec.at && spec.phase === "during" ? watchdog() : undefined

/**
 * `{ "at": "file", "dir": "...", "match": "duckdb", "delayUs": 0 }`: a thread watches `dir` and
 * kills the process `delayUs` after a file whose name matches appears in it (the instant DuckDB
 * creates a database file, before or amid the writes of its header); `"path"` instead of `dir`
 * and `match` watches one file name, with less delay. The log names the file; its size at the
 * kill is what the parent finds (nothing writes to it after the kill).
 */
if (spec.at === "file") {
  const worker = new Worker(
    `const { workerData: { path, dir, match, delayUs, logFile } } = require("node:worker_threads")
     const fs = require("node:fs")
     const log = fs.openSync(logFile, "a")
     const re = match === undefined ? undefined : new RegExp(match)
     const before = new Set(path === undefined && fs.existsSync(dir) ? fs.readdirSync(dir) : [])
     let name
     while (name === undefined) {
       if (path !== undefined) name = fs.existsSync(path) ? path : undefined
       else try { name = fs.readdirSync(dir).find((n) => re.test(n) && !before.has(n)) } catch {}
     }
     const start = process.hrtime.bigint()
     while (process.hrtime.bigint() - start < BigInt(delayUs) * 1000n);
     fs.writeSync(log, "aimed file " + name + " during\\nkilled +" + Number((process.hrtime.bigint() - start) / 1000n) + "us\\n")
     process.kill(process.pid, "SIGKILL")`,
    { eval: true, workerData: { path: spec.path, dir: spec.dir, match: spec.match, delayUs: spec.delayUs ?? 0, logFile } }
  )
  worker.unref()
}

const aimed = (kind) => spec.at === kind && ++counts[kind] === spec.nth
const label = (kind, what) => `${kind}#${spec.nth}${what ? ` (${what})` : ""}`

/** Wraps an async call aimed at: kill before, during or after it. */
const around = async (name, call) => {
  if (spec.phase === "before") waitForKill(name)
  dog?.arm(name)
  try {
    return await call()
  } finally {
    dog?.returned()
    if (spec.phase === "after") waitForKill(name)
  }
}

/** `{ "at": "time" }`: nothing is killed; the log gets how long each opening, COMMIT and close took (`took <label> <us>us`). */
const timed = (name, call) => {
  const start = process.hrtime.bigint()
  const done = () => note(`took ${name} ${Number((process.hrtime.bigint() - start) / 1000n)}us`)
  const out = call()
  if (out && typeof out.then === "function") return out.finally(done)
  done()
  return out
}

if (spec.at === "time") {
  const n = { create: 0, commit: 0, close: 0 }
  const create = duckdb.DuckDBInstance.create
  duckdb.DuckDBInstance.create = function (...args) {
    return timed(`create#${++n.create}`, () => create.apply(this, args))
  }
  const run = duckdb.DuckDBConnection.prototype.run
  duckdb.DuckDBConnection.prototype.run = function (sql, ...rest) {
    if (String(sql).trim() !== "COMMIT") return run.call(this, sql, ...rest)
    return timed(`commit#${++n.commit}`, () => run.call(this, sql, ...rest))
  }
  const closeSync = duckdb.DuckDBInstance.prototype.closeSync
  duckdb.DuckDBInstance.prototype.closeSync = function (...rest) {
    return timed(`close#${++n.close}`, () => closeSync.apply(this, rest))
  }
} else if (spec.at) {
  const create = duckdb.DuckDBInstance.create
  duckdb.DuckDBInstance.create = function (path, ...rest) {
    if (!aimed("create")) return create.call(this, path, ...rest)
    return around(label("create", path), () => create.call(this, path, ...rest))
  }
  const run = duckdb.DuckDBConnection.prototype.run
  duckdb.DuckDBConnection.prototype.run = function (sql, ...rest) {
    if (!(match && match.test(String(sql).trim()) && aimed("sql"))) return run.call(this, sql, ...rest)
    return around(label("sql", String(sql).replace(/\s+/g, " ").slice(0, 60)), () => run.call(this, sql, ...rest))
  }
  // `{ "at": "fs", "call": "linkSync", "nth": 1, "phase": "before" | "after" }`: a file system call
  if (spec.at === "fs") {
    const nodeFs = require("node:fs")
    const call = nodeFs[spec.call]
    let n = 0
    nodeFs[spec.call] = function (...args) {
      if (++n !== spec.nth) return call.apply(this, args)
      const name = `fs ${spec.call}#${spec.nth}`
      if (spec.phase === "before") waitForKill(name)
      const out = call.apply(this, args)
      if (spec.phase === "after") waitForKill(name)
      return out
    }
    // ES modules that imported node:fs see the patched function too
    require("node:module").syncBuiltinESMExports()
  }
  const closeSync = duckdb.DuckDBInstance.prototype.closeSync
  duckdb.DuckDBInstance.prototype.closeSync = function (...rest) {
    if (!aimed("close")) return closeSync.apply(this, rest)
    const name = label("close")
    if (spec.phase === "before") waitForKill(name)
    dog?.arm(name)
    const out = closeSync.apply(this, rest)
    dog?.returned()
    if (spec.phase === "after") waitForKill(name)
    return out
  }
}
