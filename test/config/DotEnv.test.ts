/**
 * `.env` files: the syntax (comments, `export`, quotes, escapes, values across lines), errors
 * that name the line and never the value, and loading that leaves the environment's own values.
 */
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { dotEnvFileOf, loadDotEnv, parseDotEnv } from "../../src/config/DotEnv.js"
import { applySettingsEnv, envValue } from "../../src/config/SettingsEnv.js"
import { decodeSettings } from "../../src/config/loadSettings.js"

const entries = (text: string) => Object.fromEntries(Either.getOrThrow(parseDotEnv(text)).map((e) => [e.key, e.value]))

describe("parseDotEnv", () => {
  it("reads comments, export, quotes, escapes and values across lines", () => {
    const text = [
      "\uFEFF# a comment",
      "",
      "PLAIN=value with spaces   # trailing comment",
      "export EXPORTED = spaced",
      "HASH=a#b",
      `DOUBLE="line\\nnext \\"q\\" \\\\ # kept"  # comment`,
      "SINGLE='$literal \\n # kept'",
      'MULTI="first',
      'second"',
      "EMPTY=",
      "PLAIN=later wins",
      "CRLF=x\r"
    ].join("\n")
    expect(entries(text)).toEqual({
      PLAIN: "later wins",
      EXPORTED: "spaced",
      HASH: "a#b",
      DOUBLE: 'line\nnext "q" \\ # kept',
      SINGLE: "$literal \\n # kept",
      MULTI: "first\nsecond",
      EMPTY: "",
      CRLF: "x"
    })
  })

  it("names the file and line of a bad line, never its value", () => {
    const bad = (text: string) => Either.getLeft(parseDotEnv(text, "/x/.env")).pipe((o) => (o._tag === "Some" ? o.value.message : ""))
    expect(bad("A=1\nthis is not an assignment s3cr3t")).toMatch(/^\/x\/\.env line 2: expected KEY=VALUE/)
    expect(bad("A=1\nB='s3cr3t")).toBe("/x/.env line 2: the quoted value of B never closes")
    expect(bad('B="s3cr3t" extra')).toMatch(/^\/x\/\.env line 1: B: only a comment may follow the closing quote/)
    for (const text of ["A=1\nthis is not an assignment s3cr3t", "B='s3cr3t", 'B="s3cr3t" extra']) expect(bad(text)).not.toContain("s3cr3t")
  })
})

describe("loadDotEnv", () => {
  it("sets what the environment leaves unset (empty counts as unset) and records where each came from", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-dotenv-"))
    try {
      const file = path.join(dir, ".env")
      fs.writeFileSync(file, "FROM_FILE=f\nSET_BEFORE=file\nEMPTY_BEFORE=file\nESTATE_ETL_TARGET=remote\n")
      const env: NodeJS.ProcessEnv = { SET_BEFORE: "env", EMPTY_BEFORE: "" }
      const load = Effect.runSync(loadDotEnv(file, env))
      expect(load).toMatchObject({ found: true, applied: ["FROM_FILE", "EMPTY_BEFORE", "ESTATE_ETL_TARGET"], shadowed: ["SET_BEFORE"] })
      expect(env).toMatchObject({ FROM_FILE: "f", SET_BEFORE: "env", EMPTY_BEFORE: "file" })
      expect(dotEnvFileOf("FROM_FILE", env)).toBe(file)
      expect(envValue("SET_BEFORE", env)?.source).toEqual({ kind: "env", name: "SET_BEFORE" })
      expect(envValue("FROM_FILE", env)?.source).toEqual({ kind: ".env", name: "FROM_FILE", file })
      // overwritten later by the process: no longer from .env
      env.FROM_FILE = "changed"
      expect(dotEnvFileOf("FROM_FILE", env)).toBeUndefined()
      // a bad target names the variable and where it came from
      env.ESTATE_ETL_TARGET = "remot"
      const settings = Either.getOrThrow(decodeSettings({}, "test"))
      expect(Either.getLeft(applySettingsEnv(settings, env)).pipe((o) => o._tag === "Some" && o.value.message)).toBe(
        "ESTATE_ETL_TARGET: must be sandbox or remote; did you mean remote?"
      )
      expect(Effect.runSync(loadDotEnv(path.join(dir, "none.env"), env))).toMatchObject({ found: false, applied: [] })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
