/**
 * The catalogue: every declared pipeline by name, and the named sets of the settings
 * (`nightly`...). Unknown names fail with the closest known name ("did you mean") and the list
 * of allowed ones.
 */
import { Either } from "effect"
import { closest } from "../config/Suggest.js"
import type { Settings } from "../config/Settings.js"
import type { Pipeline } from "./Pipeline.js"
import { InvalidInput } from "./RunError.js"

export interface Registry {
  readonly all: ReadonlyArray<Pipeline>
  readonly get: (name: string) => Either.Either<Pipeline, InvalidInput>
  /** Expands pipeline and set names into pipelines, in order, without repeats. */
  readonly resolve: (names: ReadonlyArray<string>) => Either.Either<ReadonlyArray<Pipeline>, InvalidInput>
}

export const makeRegistry = (pipelines: ReadonlyArray<Pipeline>, settings: Settings): Registry => {
  const byName = new Map(pipelines.map((p) => [p.name, p]))
  const sets = settings.sets
  const allowed = () => [...byName.keys(), ...Object.keys(sets).map((s) => `${s} (set)`)].join(", ")
  const get = (name: string) => {
    const p = byName.get(name)
    if (p) return Either.right(p)
    const best = closest(name, [...byName.keys(), ...Object.keys(sets)])
    const hint = best === undefined ? "" : `; did you mean ${best}?`
    return Either.left(new InvalidInput({ field: "pipeline", detail: `unknown pipeline "${name}"${hint}; allowed: ${allowed()}` }))
  }
  const resolve = (names: ReadonlyArray<string>) => {
    if (names.length === 0)
      return Either.left(new InvalidInput({ field: "pipeline", detail: `name at least one pipeline or set; allowed: ${allowed()}` }))
    const out: Array<Pipeline> = []
    for (const name of names) {
      const members = sets[name] ?? [name]
      for (const m of members) {
        const p = get(m)
        if (Either.isLeft(p)) return Either.left(sets[name] ? new InvalidInput({ field: `sets.${name}`, detail: p.left.detail }) : p.left)
        if (!out.includes(p.right)) out.push(p.right)
      }
    }
    return Either.right(out)
  }
  return { all: pipelines, get, resolve }
}
