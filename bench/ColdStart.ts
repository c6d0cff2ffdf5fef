/**
 * Cold start of the installed CLI: `estate-etl --help` and `estate-etl list` (in the repository,
 * with its settings) against a bare `node -e 0`, CPU of the whole process, the three alternated
 * `rounds` times; target: at most 6 times the bare start (issue 18).
 */
import { measured, spread } from "./ChildRun.js"
import { CLI } from "./Rounds.js"
import { fmt, type Line } from "./Report.js"

export const coldStartLines = async (rounds: number): Promise<ReadonlyArray<Line>> => {
  const runs = { bare: [] as Array<number>, help: [] as Array<number>, list: [] as Array<number> }
  const commands = { bare: ["-e", "0"], help: [CLI, "--help"], list: [CLI, "list"] } as const
  for (let r = 0; r < rounds; r++) {
    for (const kind of ["bare", "help", "list"] as const) {
      const m = await measured(process.execPath, commands[kind])
      if (m.code !== 0) throw new Error(`${kind} exited with ${m.code}: ${m.stderr.slice(-500)}`)
      runs[kind].push(m.cpuMs)
    }
  }
  const bare = spread(runs.bare)
  return (["help", "list"] as const).map((kind) => {
    const s = spread(runs[kind])
    // GNU time counts CPU in hundredths of a second, a fifth of a bare start: the ratio is of the
    // sums (the runs' mean), the spread pair by pair
    const ratio = runs[kind].reduce((a, b) => a + b, 0) / runs.bare.reduce((a, b) => a + b, 0)
    const ratios = spread(runs[kind].map((ms, i) => ms / Math.max(10, runs.bare[i]!)))
    return {
      group: "cold start",
      measure: `estate-etl ${kind === "help" ? "--help" : "list"}: CPU of the process, ${rounds} rounds`,
      value: `${fmt(s.median)} ms (${fmt(s.min)}-${fmt(s.max)})`,
      baseline: `node -e 0 ${fmt(bare.median)} ms (${fmt(bare.min)}-${fmt(bare.max)})`,
      ratio,
      spread: `${ratio.toFixed(2)} (${ratios.min.toFixed(2)}-${ratios.max.toFixed(2)})`,
      target: "<= 6",
      met: ratio <= 6
    }
  })
}
