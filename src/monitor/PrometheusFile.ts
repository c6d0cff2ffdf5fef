/**
 * `--metrics-file` (setting `metricsFile`, env `ESTATE_ETL_METRICS_FILE`): the runs' figures in
 * Prometheus text exposition format, for node_exporter's textfile collector. Written while a run
 * lands its pages (status `running`, the figures so far: `mergeProgress`, at most once a second),
 * when each pipeline ends and at the end of every `run` command, however its runs ended,
 * atomically (a temporary file in the same folder, then a rename: the collector never reads half
 * a file).
 *
 * One file serves every make target of a data repository: the series of pipelines this command
 * did not run are kept from the file as it was (merged by the `pipeline` label), and so is a
 * pipeline's `estate_etl_last_success_timestamp_seconds` while its later runs do not succeed.
 * Two commands writing the same file at the same moment may lose one's series (the last rename
 * wins); commands on one warehouse never overlap (its lock), shards should use a file each.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import type { RunSummary } from "../pipeline/Runner.js"
import type { Bill } from "../report/Bill.js"
import { mergeBill } from "./BillMetrics.js"
import { ENDED_ONLY, progressSamplesOf, RUN_METRICS, type RunInProgress, type RunMetric, type Sample, samplesOf } from "./RunFigures.js"

/** A metric family as read from a file: its help and type lines and its samples. */
export interface Family {
  readonly name: string
  readonly help: string
  readonly type: string
  readonly samples: ReadonlyArray<Sample>
}

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")
const escapeHelp = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const number = (v: number) => (Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v))

/** The text exposition of `families` (HELP, TYPE, then one line per sample). */
export const renderFamilies = (families: ReadonlyArray<Family>): string =>
  families
    .filter((f) => f.samples.length > 0)
    .map((f) =>
      [
        `# HELP ${f.name} ${escapeHelp(f.help)}`,
        `# TYPE ${f.name} ${f.type}`,
        ...f.samples.map((s) => {
          const labels = Object.entries(s.labels)
            .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
            .join(",")
          return `${s.name}${labels ? `{${labels}}` : ""} ${number(s.value)}`
        })
      ].join("\n")
    )
    .join("\n") + "\n"

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y

const parseLabels = (text: string): Record<string, string> | undefined => {
  const labels: Record<string, string> = {}
  LABEL.lastIndex = 0
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text)
    if (!m) return undefined
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_all, c: string) => (c === "n" ? "\n" : c))
  }
  return labels
}

/**
 * The families of a text exposition, in file order. Lines it cannot read are skipped (an
 * earlier file is kept as far as it can be, never a reason to fail a run).
 */
export const parseFamilies = (text: string): Array<Family> => {
  const families = new Map<string, { name: string; help: string; type: string; samples: Array<Sample> }>()
  const family = (name: string) => {
    let f = families.get(name)
    if (!f) families.set(name, (f = { name, help: "", type: "untyped", samples: [] }))
    return f
  }
  for (const line of text.split("\n")) {
    const meta = /^#\s+(HELP|TYPE)\s+(\S+)\s?(.*)$/.exec(line)
    if (meta) {
      const f = family(meta[2]!)
      if (meta[1] === "HELP") f.help = meta[3]!.replace(/\\n/g, "\n").replace(/\\\\/g, "\\")
      else f.type = meta[3]!.trim()
      continue
    }
    if (line.trim() === "" || line.startsWith("#")) continue
    const m = SAMPLE.exec(line.trim())
    const labels = m ? parseLabels(m[2] ?? "") : undefined
    if (!m || !labels) continue
    const value = m[3] === "+Inf" ? Infinity : m[3] === "-Inf" ? -Infinity : Number(m[3])
    family(m[1]!).samples.push({ name: m[1]!, labels, value })
  }
  return [...families.values()]
}

/**
 * The file after this command's runs: their samples, the earlier file's samples of every other
 * pipeline (and of families this version does not write), and the last success of a pipeline
 * whose run now did not succeed.
 */
export const mergeRuns = (earlier: ReadonlyArray<Family>, summaries: ReadonlyArray<RunSummary>, endedAt: number): Array<Family> => {
  const ran = new Set(summaries.map((s) => s.pipeline))
  const fresh = summaries.flatMap((s) => samplesOf(s, endedAt))
  const succeeded = new Set(fresh.filter((s) => s.name === "estate_etl_last_success_timestamp_seconds").map((s) => s.labels.pipeline))
  const kept = (f: Family) =>
    f.samples.filter((s) => {
      const p = s.labels.pipeline
      if (p === undefined || !ran.has(p)) return true
      return f.name === "estate_etl_last_success_timestamp_seconds" && !succeeded.has(p)
    })
  const byName = new Map<string, Family>()
  for (const f of earlier) byName.set(f.name, { ...f, samples: kept(f) })
  for (const [name, help] of Object.entries(RUN_METRICS)) {
    const before = byName.get(name)
    byName.set(name, { name, help, type: "gauge", samples: [...(before?.samples ?? []), ...fresh.filter((s) => s.name === name)] })
  }
  return sorted([...byName.values()])
}

/** Each family's samples in a stable order: by pipeline, then labels. */
const sorted = (families: ReadonlyArray<Family>): Array<Family> => {
  const order = (s: Sample) => `${s.labels.pipeline ?? ""}\u0000${JSON.stringify(s.labels)}`
  return families.map((f) => ({
    ...f,
    samples: [...f.samples].sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))
  }))
}

/**
 * The file while `run` is in progress: its samples (status `running`), the earlier file's samples
 * of every other pipeline, and of its own the series only an ended run has (exit code, missing
 * keys, shortfalls, caps, last run and last success), kept from its previous run.
 */
export const mergeProgress = (earlier: ReadonlyArray<Family>, run: RunInProgress, now: number): Array<Family> => {
  const fresh = progressSamplesOf(run, now)
  const byName = new Map<string, Family>()
  for (const f of earlier) {
    const keep = ENDED_ONLY.has(f.name as RunMetric)
    byName.set(f.name, { ...f, samples: f.samples.filter((s) => keep || s.labels.pipeline !== run.pipeline) })
  }
  for (const [name, help] of Object.entries(RUN_METRICS)) {
    const before = byName.get(name)
    byName.set(name, { name, help, type: "gauge", samples: [...(before?.samples ?? []), ...fresh.filter((s) => s.name === name)] })
  }
  return sorted([...byName.values()])
}

/** Merges a run in progress into the metrics file at `path` (created when absent). */
export const writeProgressMetrics = (path: string, run: RunInProgress, now: number = Date.now()): void => {
  const earlier = fs.existsSync(path) ? parseFamilies(fs.readFileSync(path, "utf8")) : []
  writeAtomically(path, renderFamilies(mergeProgress(earlier, run, now)))
}

/** Writes `text` to `path` through a temporary file in its folder and a rename. */
export const writeAtomically = (path: string, text: string): void => {
  const dir = nodePath.dirname(path)
  const temp = nodePath.join(dir, `.${nodePath.basename(path)}.${process.pid}.tmp`)
  try {
    fs.writeFileSync(temp, text)
    fs.renameSync(temp, path)
  } catch (e) {
    fs.rmSync(temp, { force: true })
    throw e
  }
}

/**
 * Merges this command's runs into the metrics file at `path` (created when absent), and the bill
 * (balance, month to date, forecast: `BillMetrics.ts`) when it is given.
 */
export const writeRunMetrics = (
  path: string,
  summaries: ReadonlyArray<RunSummary>,
  endedAt: number = Date.now(),
  bill?: Bill | undefined
): void => {
  const earlier = fs.existsSync(path) ? parseFamilies(fs.readFileSync(path, "utf8")) : []
  writeAtomically(path, renderFamilies(mergeBill(mergeRuns(earlier, summaries, endedAt), bill)))
}
