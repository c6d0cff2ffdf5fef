/**
 * Run ids: the UTC start to the second, the pipeline and a random suffix, e.g.
 * `20261123135300-plots-germany-k3j9x2`; a `reload` run is prefixed `reload-`.
 */
export const newRunId = (pipeline: string, kind: "run" | "reload" = "run"): string =>
  `${kind === "reload" ? "reload-" : ""}${new Date()
    .toISOString()
    .replace(/[-:.TZ]/g, "")
    .slice(0, 14)}-${pipeline}-${Math.random().toString(36).slice(2, 8)}`
