/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by source
 * file, top entries first, so "where does the time go" is a table rather than a flame graph.
 * Usage: `tsx bench/ProfileSummary.ts <file.cpuprofile> [top]`.
 */
import * as fs from "node:fs"

interface Node {
  readonly id: number
  readonly callFrame: { functionName: string; url: string; lineNumber: number }
  readonly children?: ReadonlyArray<number>
}
interface Profile {
  readonly nodes: ReadonlyArray<Node>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

export interface ProfileLine {
  readonly name: string
  readonly ms: number
  readonly share: number
}

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\//, "~/")
    .replace(/.*\/work\/main\//, "")

/** Self time per function and per file. */
export const summarise = (file: string, top = 25): { total: number; byFunction: Array<ProfileLine>; byFile: Array<ProfileLine> } => {
  const p = JSON.parse(fs.readFileSync(file, "utf8")) as Profile
  const byId = new Map(p.nodes.map((n) => [n.id, n]))
  const selfUs = new Map<number, number>()
  p.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)))
  const fn = new Map<string, number>()
  const files = new Map<string, number>()
  let total = 0
  for (const [id, us] of selfUs) {
    const cf = byId.get(id)!.callFrame
    const url = shortUrl(cf.url)
    const name = `${cf.functionName || "(anonymous)"} ${url ? `${url}:${cf.lineNumber + 1}` : ""}`.trim()
    fn.set(name, (fn.get(name) ?? 0) + us)
    const f = url || cf.functionName
    files.set(f, (files.get(f) ?? 0) + us)
    total += us
  }
  const lines = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: us / 1000, share: us / total }))
  return { total: total / 1000, byFunction: lines(fn), byFile: lines(files) }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const s = summarise(process.argv[2]!, Number(process.argv[3] ?? 25))
  const show = (title: string, l: Array<ProfileLine>) => {
    process.stdout.write(`\n${title} (total ${s.total.toFixed(0)} ms)\n`)
    for (const x of l) process.stdout.write(`${(x.share * 100).toFixed(1).padStart(5)}%  ${x.ms.toFixed(0).padStart(7)} ms  ${x.name}\n`)
  }
  show("self time by function", s.byFunction)
  show("self time by file", s.byFile)
}
