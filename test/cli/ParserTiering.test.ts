/**
 * The installed CLI (`dist/bundle/main.js`; `src/cli/ParserTiering.ts`) keeps undici's HTTP parser
 * (llhttp, WebAssembly) on V8's baseline compiler: V8's own trace of each function it compiles
 * (`--trace-wasm-compilation-times`) shows the parser compiled by Liftoff and never by TurboFan in
 * a real `run`, while the same run with V8's default tiering budget given to node (which the CLI
 * leaves alone) recompiles it with TurboFan: the run makes enough requests for the tier-up.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PARSER_TIERING_BUDGET, parserTieringBudget } from "../../src/cli/ParserTiering.js"
import { runCli, sandboxEnv, settingsFile } from "../support/cli.js"
import { startTestSandbox } from "../support/sandbox.js"
import { makeTempDir } from "../support/tempDirs.js"

const compilers = (stdout: string) => ({
  liftoff: stdout.match(/^Compiled function .* using Liftoff/gm)?.length ?? 0,
  turbofan: stdout.match(/^Compiled function .* using TurboFan/gm)?.length ?? 0
})

describe("the HTTP parser's tiering budget", () => {
  it("is V8's largest unless node was given one, in either spelling", () => {
    expect(parserTieringBudget([])).toBe(2 ** 31 - 1)
    expect(parserTieringBudget(["--trace-wasm-compilation-times"])).toBe(PARSER_TIERING_BUDGET)
    expect(parserTieringBudget(["--wasm-tiering-budget=1800000"])).toBeUndefined()
    expect(parserTieringBudget(["--wasm_tiering_budget=5"])).toBeUndefined()
    expect(parserTieringBudget(["--wasm-tiering-budget", "5"])).toBeUndefined()
    // another wasm flag is not a budget
    expect(parserTieringBudget(["--no-wasm-dynamic-tiering"])).toBe(PARSER_TIERING_BUDGET)
  })
})

describe("the CLI's HTTP parser", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { plots: 400 } })
  })
  afterAll(() => sandbox.close())
  const run = (nodeArgs: ReadonlyArray<string>) =>
    runCli(["run", "plots-germany", "--config", settingsFile(makeTempDir("estate-tiering-"), sandbox)], sandboxEnv(), { nodeArgs })
  it("stays on Liftoff, and a tiering budget given to node wins", async () => {
    const [own, given] = await Promise.all([
      run(["--trace-wasm-compilation-times"]),
      run(["--trace-wasm-compilation-times", "--wasm-tiering-budget=1800000"])
    ])
    expect([own.code, given.code]).toEqual([0, 0])
    // V8 reports a flag it does not know on stderr, not by throwing: the CLI's V8 policies (this
    // budget, the heap's flags) must all be known to the running Node, or every command prints it
    expect(own.stderr).not.toContain("unrecognized flag")
    const [ownCompiled, givenCompiled] = [compilers(own.stdout), compilers(given.stdout)]
    expect(ownCompiled.liftoff).toBeGreaterThan(0)
    expect(ownCompiled.turbofan).toBe(0)
    expect(givenCompiled.turbofan).toBeGreaterThan(0)
  }, 60_000)
})
