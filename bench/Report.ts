/**
 * One line of the bench table: a figure, the baseline it is measured against (in the same run)
 * and its target (issues 7 and 18). Targets are reported, never enforced.
 */
export interface Line {
  readonly group: string
  readonly measure: string
  /** The figure, with its unit (e.g. "12,345 rows/s"). */
  readonly value: string
  /** What it is compared with, or "". */
  readonly baseline: string
  /** The ratio (or the figure itself when it is already one). */
  readonly ratio: number | undefined
  /** When the figure was measured more than once: the ratio as "median (min-max)". */
  readonly spread?: string
  readonly target: string
  readonly met: boolean | undefined
  /** Why the target is not met, as measured (printed under the table when it is not). */
  readonly why?: string
}

export const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

export const perSecond = (count: number, ms: number) => (ms > 0 ? (count * 1000) / ms : 0)

/** The lines as a Markdown table. */
export const markdown = (lines: ReadonlyArray<Line>): string => {
  const rows = lines.map((l) => [
    l.group,
    l.measure,
    l.value,
    l.baseline,
    l.spread ?? (l.ratio === undefined ? "" : l.ratio.toFixed(2)),
    l.target,
    l.met === undefined ? "" : l.met ? "met" : "NOT met"
  ])
  const head = ["group", "measure", "value", "baseline", "ratio", "target", ""]
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: ReadonlyArray<string>) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`
  // one note per reason, naming each line it holds for
  const reasons = new Map<string, Array<string>>()
  for (const l of lines)
    if (l.met === false && l.why)
      reasons.set(l.why, [...(reasons.get(l.why) ?? []), `${l.group}, ${l.measure.split(":")[0]}, target ${l.target}`])
  const notes = [...reasons].map(([why, which]) => `- ${which.join("; ")}: ${why}`)
  return [
    line(head),
    `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`,
    ...rows.map(line),
    ...(notes.length > 0 ? ["", "Not met, and why (measured; docs/BENCHMARKS.md has the figures):", ...notes] : [])
  ].join("\n")
}
