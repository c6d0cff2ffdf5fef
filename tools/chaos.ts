/**
 * The chaos harness from the command line: runs each scenario of `test/support/chaos.ts` (the
 * real CLI as a child process, SIGKILLed at random instants and resumed) and writes the figures.
 *
 *   npx tsx tools/chaos.ts [--kills 50] [--pipeline sourcing-search|seller-leads|all] [--seed 7] [--out data/chaos.json]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { type ChaosResult, type ChaosScenario, passed, runChaos, scenarios } from "../test/support/chaos.js"

const ROOT = path.resolve(import.meta.dirname, "..")

const flag = (argv: ReadonlyArray<string>, name: string) => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : undefined
}

const main = async (argv: ReadonlyArray<string>) => {
  const kills = Number(flag(argv, "kills") ?? 50)
  const which = flag(argv, "pipeline") ?? "all"
  const seed = Number(flag(argv, "seed") ?? 7)
  const out = flag(argv, "out") ?? path.join(ROOT, "data", "chaos.json")
  const all = scenarios("full")
  const chosen = which === "all" ? Object.values(all) : [all[which]]
  if (!Number.isInteger(kills) || kills < 1 || chosen.some((s) => s === undefined)) {
    process.stderr.write(`usage: tools/chaos.ts [--kills N >= 1] [--pipeline ${Object.keys(all).join("|")}|all] [--seed N] [--out file]\n`)
    return 2
  }
  const results: Array<ChaosResult> = []
  for (const scenario of chosen as Array<ChaosScenario>) {
    results.push(await runChaos({ scenario, kills, seed, log: (l) => process.stdout.write(l + "\n") }))
  }
  const rows = results.map((r) => ({
    pipeline: r.pipeline,
    kind: r.kind,
    kills: r.kills,
    rows: Object.values(r.tables).reduce((s, t) => s + t.clean.rows, 0),
    lost: r.rowsLost,
    duplicates: r.duplicates,
    identical: r.identical ? "yes" : "NO",
    clean_units: r.cleanUnits,
    units_over: r.unitsOver,
    bound: r.unitsOverBound,
    seconds: r.seconds,
    result: passed(r) ? "pass" : "FAIL"
  }))
  const headers = Object.keys(rows[0]!)
  const width = headers.map((h) => Math.max(h.length, ...rows.map((r) => String(r[h as keyof typeof r]).length)))
  process.stdout.write(
    "\n" +
      [headers, ...rows.map((r) => headers.map((h) => String(r[h as keyof typeof r])))]
        .map((cells) => cells.map((c, i) => c.padEnd(width[i]!)).join("  "))
        .join("\n") +
      "\n"
  )
  fs.mkdirSync(path.dirname(out), { recursive: true })
  fs.writeFileSync(
    out,
    JSON.stringify({ at: new Date().toISOString(), host: os.hostname(), cpus: os.cpus().length, seed, results }, null, 2)
  )
  process.stdout.write(`figures written to ${out}\n`)
  return results.every(passed) ? 0 : 1
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      process.stderr.write(`chaos: ${e instanceof Error ? e.message : String(e)}\n`)
      process.exit(1)
    }
  )
}
