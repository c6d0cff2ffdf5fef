/**
 * Keeps undici's HTTP parser (llhttp, WebAssembly) on V8's baseline compiler (Liftoff) in the
 * CLI's own process. V8 recompiles the parser's one large function with its optimizing compiler
 * (TurboFan) after about a hundred responses, which cost every `run` ~0.25 s of CPU on a
 * background thread, about a tenth of a small run's; Liftoff's code parses 10,000 responses of
 * 100 KB in ~35 ms, so the optimized code would pay back only after a few hundred thousand
 * responses (measured: docs/BENCHMARKS.md, stop 49). So the CLI raises V8's tiering budget to its
 * largest: a pull that parses gigabytes still gets the optimized parser.
 *
 * Not `--liftoff-only`: Node 24 ignores it once V8 runs, and reads the budget when a module is
 * compiled (Node 20, 22 and 24 measured). Set in `main.ts` before any request; a library user's
 * process keeps its own settings, and a `--wasm-tiering-budget` given to node wins.
 */
import * as v8 from "node:v8"

/** Assumed (measured on this project's runs): V8's largest budget, so the parser tiers up only after gigabytes. */
export const PARSER_TIERING_BUDGET = 2_147_483_647

/** The budget to set, or undefined when node was given one. */
export const parserTieringBudget = (execArgv: ReadonlyArray<string>): number | undefined =>
  execArgv.some((arg) => /^--wasm[-_]tiering[-_]budget(=|$)/.test(arg)) ? undefined : PARSER_TIERING_BUDGET

/** Applies the budget to this process (before its first HTTP request). */
export const applyParserTiering = (execArgv: ReadonlyArray<string> = process.execArgv): void => {
  const budget = parserTieringBudget(execArgv)
  if (budget !== undefined) v8.setFlagsFromString(`--wasm-tiering-budget=${budget}`)
}
