/**
 * Fixtures of the monitoring tests: a strict reader of the Prometheus text format (independent
 * of `src/monitor/PrometheusFile.ts`: what node_exporter would refuse, it refuses) and the
 * warehouse's bookkeeping read back as ground truth.
 */
import { DuckDBInstance } from "@duckdb/node-api"
import { expect } from "vitest"

export interface PromSample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/**
 * Parses a text exposition strictly: every family has one HELP and one TYPE line before its
 * samples, samples of a family are contiguous, no sample repeats its labels, names and labels
 * are well formed, values are numbers, the file ends with a newline and has no timestamps.
 */
export const parseProm = (text: string): { readonly types: Map<string, string>; readonly samples: Array<PromSample> } => {
  expect(text.endsWith("\n"), "ends with a newline").toBe(true)
  const help = new Map<string, string>()
  const types = new Map<string, string>()
  const samples: Array<PromSample> = []
  const closed = new Set<string>()
  let current: string | undefined
  const seen = new Set<string>()
  for (const line of text.slice(0, -1).split("\n")) {
    const meta = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line)
    if (meta) {
      const [, kind, name, rest] = meta
      const map = kind === "HELP" ? help : types
      expect(map.has(name!), `one ${kind} line for ${name}`).toBe(false)
      if (kind === "TYPE") expect(["gauge", "counter", "untyped", "summary", "histogram"]).toContain(rest)
      expect(closed.has(name!), `${name} declared after its samples`).toBe(false)
      map.set(name!, rest!)
      if (current !== name) {
        if (current) closed.add(current)
        current = name
      }
      continue
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line)
    expect(m, `a sample line: ${line}`).not.toBeNull()
    const [, name, labelText, valueText] = m!
    expect(name, `${name} sampled under ${current}`).toBe(current)
    expect(help.has(name!) && types.has(name!), `HELP and TYPE before ${name}`).toBe(true)
    const labels: Record<string, string> = {}
    if (labelText) {
      for (const part of labelText.match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? []) {
        const eq = part.indexOf("=")
        labels[part.slice(0, eq)] = part.slice(eq + 2, -1).replace(/\\(.)/g, (_a, c: string) => (c === "n" ? "\n" : c))
      }
      expect(
        Object.entries(labels)
          .map(([k, v]) => `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)
          .join(","),
        line
      ).toBe(labelText)
    }
    expect(valueText, line).toMatch(/^(-?\d+(\.\d+)?(e[+-]?\d+)?|NaN|[+-]Inf)$/)
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`
    expect(seen.has(key), `repeated series ${key}`).toBe(false)
    seen.add(key)
    samples.push({ name: name!, labels, value: Number(valueText) })
  }
  return { types, samples }
}

/** The value of one series (by name and every label), failing when it is absent. */
export const valueOf = (samples: ReadonlyArray<PromSample>, name: string, labels: Record<string, string>): number => {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  expect(found.length, `${name}${JSON.stringify(labels)}`).toBe(1)
  return found[0]!.value
}

/** Rows of a read-only query over a warehouse file (the CLI has released it). */
export const queryWarehouse = async (file: string, sql: string): Promise<Array<Record<string, unknown>>> => {
  const db = await DuckDBInstance.create(file, { access_mode: "READ_ONLY" })
  const conn = await db.connect()
  try {
    return (await conn.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>
  } finally {
    conn.closeSync()
    db.closeSync()
  }
}
