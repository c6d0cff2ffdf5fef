/**
 * A new warehouse file appears whole or not at all.
 *
 * DuckDB creates a database file in steps: it creates the file, then writes its three header
 * blocks (12 KiB). A process killed between those steps leaves a file of 0 to 12 KiB that DuckDB
 * refuses to open ever after ("not a valid DuckDB database", "Could not read enough bytes"), so
 * every later run exited 2 (issue 30: 1 of 6 kills aimed at the instant the file appears). A new
 * warehouse is therefore made under a hidden temporary name beside its own (DuckDB's file, the
 * bookkeeping tables and the format marker, checkpointed and closed: no WAL), then given its name
 * with one `link(2)`: at every instant the name holds nothing or a whole warehouse. `link` refuses
 * a name that exists, so two processes creating the same warehouse never replace each other's
 * file: the second opens the first's. Temporary files of dead processes are removed by the next
 * open to write.
 *
 * A process makes the empty warehouse once: the bytes of its first creation (closed, no WAL, its
 * creation time written by the first open, not here) are written under the temporary name of each
 * later one, synced, then linked the same way. DuckDB building the same bookkeeping tables again
 * cost ~60 ms of CPU a warehouse (an instance, the DDL, a checkpoint, a close), most of the fixed
 * cost of a small run in a process that makes many (tests, scratch warehouses of a notebook).
 * The build ships those bytes too (`writeWarehouseTemplate`, under `TEMPLATE_DIR`), named after
 * what makes them (DuckDB's version, the block size, the bookkeeping's DDL): so the first
 * creation of a process copies them as well (78-92 ms of a CLI run's start, measured), and a
 * template of another DuckDB or bookkeeping is never found.
 *
 * A file that an older toolkit (or DuckDB used directly) left cut short at the name is
 * recognised: DuckDB cannot open it, it is at most the 12 KiB of header blocks, empty, zeros or
 * starting with DuckDB's magic, and no WAL lies beside it (so it holds no data). Opening to write
 * replaces it with a new warehouse (a rename over it); opening to read leaves it and says so.
 */
import { Effect } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileURLToPath } from "node:url"
import { BOOKKEEPING_DDL, FORMAT_NAME, FORMAT_VERSION, initialise } from "./Bookkeeping.js"
import { openDatabase, WAREHOUSE_BLOCK_SIZE } from "./Database.js"
import { duckdb } from "./DuckDbApi.js"
import { causeMessage, WarehouseError } from "./WarehouseError.js"
import { pidAlive } from "../shared/ProcessAlive.js"

/** DuckDB's header blocks: a file this long or shorter holds no table. */
const HEADER_BYTES = 12_288

const tempPrefix = (path: string) => `.${nodePath.basename(path)}.creating-`

/** Removes a file and what DuckDB keeps beside it (WAL, spill folder); missing ones are fine. */
const removeDatabase = (file: string) => {
  for (const f of [file, `${file}.wal`, `${file}.tmp`]) fs.rmSync(f, { recursive: true, force: true })
}

/**
 * Removes the temporary files of creations whose process died (`.<name>.creating-<pid>-<random>`,
 * with DuckDB's WAL and spill folder beside them). Every open to write calls it: a creation
 * killed after its link left its temporary name behind, and no later creation would come.
 */
export const removeDeadTemps = (path: string) => {
  const dir = nodePath.dirname(path)
  const prefix = tempPrefix(path)
  let names: Array<string> = []
  try {
    names = fs.readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    if (!pidAlive(Number(name.slice(prefix.length).split("-")[0]))) removeDatabase(nodePath.join(dir, name.replace(/\.(wal|tmp)$/, "")))
  }
}

/** Makes the rename or link of a new file durable (best effort: not every file system syncs folders). */
const syncDir = (dir: string) => {
  let fd: number | undefined
  try {
    fd = fs.openSync(dir, "r")
    fs.fsyncSync(fd)
  } catch {
    // a folder that cannot be synced: the kernel still has the link
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/**
 * Whether the file at `path` is a creation cut short (see the module comment). Call it once
 * DuckDB refused to open the file: a whole empty database is 12 KiB with DuckDB's magic too.
 */
export const isCutShort = (path: string): boolean => {
  try {
    if (fs.existsSync(`${path}.wal`)) return false
    const stat = fs.statSync(path)
    if (!stat.isFile() || stat.size > HEADER_BYTES) return false
    const bytes = fs.readFileSync(path)
    return bytes.length === 0 || bytes.every((b) => b === 0) || bytes.subarray(8, 12).toString("latin1") === "DUCK"
  } catch {
    return false
  }
}

/** The bytes of the empty warehouse this process created first, by block size (see the module comment). */
const emptyWarehouses = new Map<number, Buffer>()

/** Where the build leaves its empty warehouses, under the package's root. */
export const TEMPLATE_DIR = "dist/bundle/warehouse-templates"

/** The file name of the empty warehouse of this DuckDB, block size and bookkeeping. */
export const templateName = (blockSize: number): string =>
  `${createHash("sha256")
    .update([duckdb.version(), blockSize, FORMAT_NAME, FORMAT_VERSION, ...BOOKKEEPING_DDL].join("\n"))
    .digest("hex")
    .slice(0, 24)}.duckdb`

/** The package's template folder, looked up once from this module's file (a bundle chunk, dist/src or src). */
let shippedDir: string | null | undefined
const templateDir = (): string | null => {
  if (shippedDir !== undefined) return shippedDir
  let dir = nodePath.dirname(fileURLToPath(import.meta.url))
  for (let up = 0; up < 6; up++) {
    if (fs.existsSync(nodePath.join(dir, TEMPLATE_DIR))) return (shippedDir = nodePath.join(dir, TEMPLATE_DIR))
    if (nodePath.dirname(dir) === dir) break
    dir = nodePath.dirname(dir)
  }
  return (shippedDir = null)
}

/**
 * The shipped empty warehouse of `blockSize` in `dir`, if there is one and it looks whole: DuckDB's
 * magic, and its header blocks followed by whole blocks (a file cut short is not copied).
 */
export const shippedTemplate = (blockSize: number, dir: string | null = templateDir()): Buffer | undefined => {
  if (dir === null) return undefined
  try {
    const bytes = fs.readFileSync(nodePath.join(dir, templateName(blockSize)))
    const whole = bytes.length > HEADER_BYTES && (bytes.length - HEADER_BYTES) % blockSize === 0
    return whole && bytes.subarray(8, 12).toString("latin1") === "DUCK" ? bytes : undefined
  } catch {
    return undefined
  }
}

/** The bytes a new warehouse of `blockSize` starts from without DuckDB: this process's first one, or the build's. */
const emptyBytes = (blockSize: number): Buffer | undefined => {
  if (!emptyWarehouses.has(blockSize)) {
    const shipped = shippedTemplate(blockSize)
    if (shipped) emptyWarehouses.set(blockSize, shipped)
  }
  return emptyWarehouses.get(blockSize)
}

/** Writes `bytes` to a new file at `file` and syncs it (before its link makes it a warehouse); a failure leaves no file. */
const writeSynced = (file: string, bytes: Buffer) => {
  fs.mkdirSync(nodePath.dirname(file), { recursive: true })
  const fd = fs.openSync(file, "wx")
  try {
    fs.writeSync(fd, bytes)
    fs.fsyncSync(fd)
  } catch (e) {
    fs.rmSync(file, { force: true })
    throw e
  } finally {
    fs.closeSync(fd)
  }
}

/** DuckDB builds the empty warehouse of `path` at `file`: the bookkeeping tables, checkpointed. */
const buildEmpty = (file: string, path: string, blockSize: number) =>
  Effect.scoped(
    Effect.flatMap(openDatabase(file, { blockSize }), (db) =>
      db.use(`Cannot create the warehouse ${path}`, async (conn) => {
        await initialise(conn, path)
        // everything into the file itself: the name is given to a file that needs no WAL
        await conn.run("CHECKPOINT")
      })
    )
  )

/** Makes the empty warehouse at the temporary name `temp`: DuckDB builds it, or its bytes are copied. */
const makeEmpty = (temp: string, path: string, blockSize: number) =>
  Effect.suspend(() => {
    const bytes = emptyBytes(blockSize)
    return bytes !== undefined
      ? Effect.try({
          try: () => writeSynced(temp, bytes),
          catch: (cause) =>
            new WarehouseError({ reason: "Io", path, cause, detail: `Cannot create the warehouse ${path}: ${causeMessage(cause)}` })
        })
      : buildEmpty(temp, path, blockSize).pipe(
          Effect.ensuring(Effect.sync(() => fs.rmSync(`${temp}.tmp`, { recursive: true, force: true }))),
          Effect.tap(() =>
            Effect.sync(() => {
              if (!fs.existsSync(`${temp}.wal`)) emptyWarehouses.set(blockSize, fs.readFileSync(temp))
            })
          )
        )
  })

/**
 * Creates the warehouse at `path` whole (see the module comment), of DuckDB blocks of
 * `blockSize` bytes: when nothing is there, or over a creation cut short (`replace`). Another
 * process that created it meanwhile wins.
 */
export const createWarehouseFile = (path: string, replace: boolean, blockSize: number = WAREHOUSE_BLOCK_SIZE) =>
  Effect.gen(function* () {
    const dir = nodePath.dirname(path)
    const temp = nodePath.join(dir, `${tempPrefix(path)}${process.pid}-${Math.random().toString(36).slice(2, 10)}`)
    removeDeadTemps(path)
    yield* makeEmpty(temp, path, blockSize)
    yield* Effect.try({
      try: () => {
        try {
          if (fs.existsSync(`${temp}.wal`)) throw new Error(`DuckDB left a WAL beside ${temp} after a checkpoint`)
          if (replace) fs.renameSync(temp, path)
          else {
            try {
              fs.linkSync(temp, path)
            } catch (e) {
              const code = (e as NodeJS.ErrnoException).code
              // EEXIST: another process made it first, and its file is whole: it is used
              if (code !== "EEXIST") {
                // a file system without hard links: a rename, unless the name appeared meanwhile
                if (fs.existsSync(path)) return
                fs.renameSync(temp, path)
              }
            }
          }
          syncDir(dir)
        } finally {
          removeDatabase(temp)
        }
      },
      catch: (cause) =>
        cause instanceof WarehouseError
          ? cause
          : new WarehouseError({ reason: "Io", path, cause, detail: `Cannot create the warehouse ${path}: ${causeMessage(cause)}` })
    })
  })

/**
 * Writes the empty warehouse of `blockSize` into `dir` under its `templateName`, built by DuckDB
 * (the build's step: `scripts/bundle.mjs`); other templates in `dir` go. Returns its path.
 */
export const writeWarehouseTemplate = (dir: string, blockSize: number = WAREHOUSE_BLOCK_SIZE) =>
  Effect.gen(function* () {
    const name = templateName(blockSize)
    fs.mkdirSync(dir, { recursive: true })
    for (const f of fs.readdirSync(dir)) if (f !== name) fs.rmSync(nodePath.join(dir, f), { recursive: true, force: true })
    const file = nodePath.join(dir, name)
    const temp = `${file}.building`
    removeDatabase(temp)
    yield* buildEmpty(temp, file, blockSize)
    if (fs.existsSync(`${temp}.wal`)) {
      return yield* new WarehouseError({ reason: "Io", path: file, detail: `DuckDB left a WAL beside ${temp} after a checkpoint` })
    }
    fs.renameSync(temp, file)
    removeDatabase(temp)
    return file
  })
