/**
 * Running the bad-input corpus: the good settings every case starts from, the deep merge of a
 * case's changes (`null` removes a key), and the settings file each case runs with.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type { BadInput } from "./badInputs.js"

const ROOT = path.resolve(import.meta.dirname, "../..")

/** The shipped settings' pipeline parameters and sets: what a user starts from. */
export const shippedSettings = (): { pipelines: Record<string, unknown>; sets: Record<string, unknown> } => {
  const json = JSON.parse(fs.readFileSync(path.join(ROOT, "config/sandbox.json"), "utf8"))
  return { pipelines: json.pipelines, sets: json.sets }
}

export const deepMerge = (base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> => {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k]
    else if (typeof v === "object" && !Array.isArray(v) && typeof out[k] === "object" && out[k] !== null && !Array.isArray(out[k])) {
      out[k] = deepMerge(out[k] as Record<string, unknown>, v as Record<string, unknown>)
    } else out[k] = v
  }
  return out
}

/** Writes the case's settings file next to the shared warehouse; returns the CLI arguments. */
export const argsOf = (c: BadInput, dir: string, good: Record<string, unknown>, index: number): Array<string> => {
  const file = path.join(dir, `case-${index}.json`)
  const text =
    c.settings && "raw" in c.settings
      ? String(c.settings.raw)
      : JSON.stringify(deepMerge(good, (c.settings ?? {}) as Record<string, unknown>), null, 2)
  fs.writeFileSync(file, text.replaceAll("{dir}", dir))
  for (const [name, content] of Object.entries(c.files ?? {})) fs.writeFileSync(path.join(dir, name), content)
  return c.args.map((a) => (a === "{config}" ? file : a.replaceAll("{dir}", dir)))
}
