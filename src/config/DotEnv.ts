/**
 * `.env`: environment variables kept in a file in the working directory, read by the command line
 * at start (`src/cli/Cli.ts`), never by the library. A variable the process environment already
 * sets (to a non-empty value, the toolkit's rule for "set" everywhere) is left alone: the
 * environment wins over `.env`, and `.env` wins over the settings file.
 *
 * Syntax, one variable a line: `KEY=VALUE`, `export KEY=VALUE`; blank lines and `# comments`;
 * a value unquoted (trimmed, a ` #` starts a comment), in single quotes (taken literally) or in
 * double quotes (`\n`, `\r`, `\t`, `\"`, `\\` escapes); quoted values may span lines. No `${VAR}`
 * expansion. A line that is none of these fails naming the file and line, never the value (it
 * may be a secret).
 */
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { InvalidInput } from "../shared/InvalidInput.js"

/** The file name the command line reads from its working directory. */
export const DOT_ENV = ".env"

export interface DotEnvEntry {
  readonly key: string
  readonly value: string
  /** 1-based line the entry starts on. */
  readonly line: number
}

/** What loading a `.env` did. */
export interface DotEnvLoad {
  /** Absolute path of the file looked for. */
  readonly file: string
  readonly found: boolean
  /** Variables taken from the file. */
  readonly applied: ReadonlyArray<string>
  /** Variables the file holds but the environment already set (the environment's value stays). */
  readonly shadowed: ReadonlyArray<string>
}

const ASSIGNMENT = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/s
const ESCAPES: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\" }

/** The entries of a `.env` text (a later entry of the same key wins when applied), or the first bad line. */
export const parseDotEnv = (text: string, file: string = DOT_ENV): Either.Either<ReadonlyArray<DotEnvEntry>, InvalidInput> => {
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/)
  const entries: Array<DotEnvEntry> = []
  const bad = (line: number, detail: string) => Either.left(new InvalidInput({ field: `${file} line ${line}`, detail }))
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1
    const trimmed = lines[i]!.trim()
    if (trimmed === "" || trimmed.startsWith("#")) continue
    const m = ASSIGNMENT.exec(trimmed)
    if (!m) return bad(lineNo, "expected KEY=VALUE (a name of letters, digits and _, then =), optionally after `export `")
    const key = m[1]!
    const rest = m[2]!
    const quote = rest[0]
    if (quote !== '"' && quote !== "'") {
      entries.push({ key, value: rest.replace(/(^|\s+)#.*$/s, "").trim(), line: lineNo })
      continue
    }
    // a quoted value: read on (across lines) to the closing quote
    let value = ""
    let text = rest.slice(1)
    let closed = false
    for (;;) {
      let j = 0
      for (; j < text.length; j++) {
        const c = text[j]!
        if (c === quote) {
          closed = true
          break
        }
        if (quote === '"' && c === "\\" && j + 1 < text.length) {
          const next = text[++j]!
          value += ESCAPES[next] ?? `\\${next}`
        } else value += c
      }
      if (closed) {
        const after = text.slice(j + 1).trim()
        if (after !== "" && !after.startsWith("#"))
          return bad(i + 1, `${key}: only a comment may follow the closing quote (found ${JSON.stringify(after.slice(0, 1))}...)`)
        break
      }
      if (i + 1 >= lines.length) return bad(lineNo, `the quoted value of ${key} never closes`)
      value += "\n"
      text = lines[++i]!
    }
    entries.push({ key, value, line: lineNo })
  }
  return Either.right(entries)
}

/** Variables set from a `.env`, with the file, while the environment still holds that value. */
const origins = new Map<string, { readonly file: string; readonly value: string }>()
let lastLoad: DotEnvLoad | undefined

/** What the last `loadDotEnv` of this process did (`undefined`: none ran, e.g. an in-process invocation). */
export const lastDotEnvLoad = (): DotEnvLoad | undefined => lastLoad

/**
 * The `.env` file `name`'s current value came from, if it did. The environment is the process's,
 * so this record is too (one `.env` load per process: `src/cli/main.ts`).
 */
export const dotEnvFileOf = (name: string, env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const o = origins.get(name)
  return o !== undefined && env[name] === o.value ? o.file : undefined
}

/**
 * Reads `file` (relative to the working directory) into `env`, leaving every variable the
 * environment already sets (non-empty). No file: nothing happens. A malformed file fails with
 * `InvalidInput` (exit 2) before anything else runs.
 */
export const loadDotEnv = (file: string = DOT_ENV, env: NodeJS.ProcessEnv = process.env): Effect.Effect<DotEnvLoad, InvalidInput> =>
  Effect.suspend((): Effect.Effect<DotEnvLoad, InvalidInput> => {
    const absolute = path.resolve(file)
    let text: string
    try {
      text = fs.readFileSync(absolute, "utf8")
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code
      if (code === "ENOENT" || code === "ENOTDIR") {
        lastLoad = { file: absolute, found: false, applied: [], shadowed: [] }
        return Effect.succeed(lastLoad)
      }
      return Effect.fail(new InvalidInput({ field: file, detail: `cannot read: ${(e as Error).message}` }))
    }
    return Either.match(parseDotEnv(text, file), {
      onLeft: Effect.fail,
      onRight: (entries) => {
        const last = new Map(entries.map((e) => [e.key, e.value]))
        const applied: Array<string> = []
        const shadowed: Array<string> = []
        for (const [key, value] of last) {
          const current = env[key]
          if (current !== undefined && current !== "") {
            shadowed.push(key)
            continue
          }
          env[key] = value
          origins.set(key, { file: absolute, value })
          applied.push(key)
        }
        lastLoad = { file: absolute, found: true, applied, shadowed }
        return Effect.succeed(lastLoad)
      }
    })
  })
