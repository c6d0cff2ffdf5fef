/**
 * A small, dependency-free SVG line chart (one line per series, month labels, a legend), enough
 * for a person to open the file in a browser and see the trend.
 */

export interface Series {
  readonly name: string
  readonly points: ReadonlyArray<{ readonly x: string; readonly y: number }>
}

const COLOURS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]

const escape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** The chart as SVG text; `x` values are category labels (sorted), `y` numbers. */
export const lineChartSvg = (title: string, yLabel: string, series: ReadonlyArray<Series>): string => {
  const width = 960
  const height = 540
  const m = { left: 70, right: 200, top: 40, bottom: 60 }
  const xs = [...new Set(series.flatMap((s) => s.points.map((p) => p.x)))].sort()
  const ys = series.flatMap((s) => s.points.map((p) => p.y))
  const lo = ys.length ? Math.min(...ys) : 0
  const hi = ys.length ? Math.max(...ys) : 1
  const pad = (hi - lo) * 0.05 || 1
  const [y0, y1] = [lo - pad, hi + pad]
  const px = (x: string) => m.left + (xs.length <= 1 ? 0 : (xs.indexOf(x) / (xs.length - 1)) * (width - m.left - m.right))
  const py = (y: number) => height - m.bottom - ((y - y0) / (y1 - y0)) * (height - m.top - m.bottom)
  const ticks = Array.from({ length: 6 }, (_, i) => y0 + ((y1 - y0) * i) / 5)
  const parts: Array<string> = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escape(title)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${m.left}" y="24" font-size="16" font-weight="bold">${escape(title)}</text>`,
    `<text transform="translate(16 ${height / 2}) rotate(-90)" text-anchor="middle">${escape(yLabel)}</text>`,
    ...ticks.map(
      (t) =>
        `<line x1="${m.left}" x2="${width - m.right}" y1="${py(t).toFixed(1)}" y2="${py(t).toFixed(1)}" stroke="#ddd"/>` +
        `<text x="${m.left - 6}" y="${(py(t) + 4).toFixed(1)}" text-anchor="end">${Math.round(t).toLocaleString("en")}</text>`
    ),
    ...xs.map(
      (x) =>
        `<text x="${px(x).toFixed(1)}" y="${height - m.bottom + 16}" text-anchor="end" transform="rotate(-40 ${px(x).toFixed(1)} ${height - m.bottom + 16})">${escape(x)}</text>`
    )
  ]
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]
    const pts = [...s.points].sort((a, b) => a.x.localeCompare(b.x)).map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`)
    parts.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${pts.join(" ")}"><title>${escape(s.name)}</title></polyline>`
    )
    const ly = m.top + 10 + i * 20
    parts.push(
      `<line x1="${width - m.right + 16}" x2="${width - m.right + 40}" y1="${ly}" y2="${ly}" stroke="${colour}" stroke-width="3"/>`
    )
    parts.push(`<text x="${width - m.right + 46}" y="${ly + 4}">${escape(s.name)}</text>`)
  })
  parts.push(`</svg>`)
  return parts.join("\n") + "\n"
}
