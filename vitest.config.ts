import { defineConfig } from "vitest/config"
import { HeavyFirst } from "./test/support/HeavyFirst.js"

/**
 * One project, one pool of at most two forks (the machines have two cores), for `make test`: the
 * in-process tests (the sandbox over HTTP, DuckDB files, Parquet read back) and the suites that
 * drive the CLI (test/cli, test/reliability), some as child processes (signals, kills, exit codes).
 * They were two projects, `unit` and `cli`, run one after the other: the switch left one fork idle
 * for about 15 s while the other's fresh module graph loaded, and the heavy CLI suites could not
 * fill the gaps of the in-process ones.
 *
 * Test files share their worker's modules (`isolate: false`): a fresh module graph per file
 * (Effect, DuckDB's bindings, the sandbox) cost about 1.1 s of CPU per file (41 s against 18 s of
 * CPU for the 21 files of test/normalize, test/config and test/service; the CLI suites'
 * collect time fell from about 140 s to 9 s). Their state lives in what each test starts
 * (sandboxes, warehouses, temp dirs), not in modules; the in-process CLI helpers put back the
 * environment and the working directory they change.
 */
/**
 * `make check` (ESTATE_CHECK=1): the fast loop, the unit tests of the toolkit's own code, in-process
 * only: no compiled CLI, no child processes, no tests of the sandbox, no whole-pipeline runs
 * (those are `make test`), beside the typecheck: under a minute on two cores.
 */
const CHECK = process.env.ESTATE_CHECK === "1"
/**
 * The nightly-style share (`make chaos`, CHAOS=full): stress runs whose whole version lives there,
 * SIGKILLs aimed at a warehouse's creation and the kill-and-resume chaos of two sources
 * (tools/chaos.ts runs 50 kills a source); the runs sharing a warehouse with the webhook receiver
 * are a test of test/cli/shared-warehouse.test.ts run only then, and test/cli/backlog.test.ts reads
 * the 30-day backlog of a world five times larger. `make test` keeps the crash tests
 * of one commit (test/load/Crash.test.ts, test/webhooks/Crash.test.ts), the signals, the lock
 * waits and the dialect matrix's share.
 */
const CHAOS = process.env.CHAOS === "full"
const CHAOS_ONLY = [
  "test/reliability/creation-chaos.test.ts",
  "test/reliability/chaos-paged.test.ts",
  "test/reliability/chaos-fanout.test.ts"
]
/**
 * The documentation walked through (`make walkthrough`, WALKTHROUGH=1): the newcomer's and the
 * adopting repository built from the packed tarball (an npm install, a strict tsc, every notebook
 * recipe), every recipe of the docs, every make target, a default week of `make nightly` /
 * `make weekly`, README's SQL after the demo and a night, the GitHub Actions recipe's two nights
 * and every example of every `--help`. Each replays whole stories whose parts `make test` covers
 * one by one; together they were ~270 s of the suite's ~1,100 s of test time on two cores, most of
 * it npm, tsc and make.
 * `make test` leaves them out; `make walkthrough` runs them (before a release, and after a change
 * to README, docs/, the Makefile or the package's contents).
 */
const WALKTHROUGH = process.env.WALKTHROUGH === "1"
const WALKTHROUGH_FILES = [
  "test/library/newcomer.test.ts",
  "test/cli/adopt.test.ts",
  "test/cli/recipes.test.ts",
  "test/cli/make-targets.test.ts",
  "test/cli/default-week.test.ts",
  "test/cli/readme-sql.test.ts",
  "test/cli/ci-state.test.ts",
  "test/cli/help-examples.test.ts"
]
const CHECK_INCLUDE = [
  "shared",
  "config",
  "service",
  "normalize",
  "extract",
  "export",
  "load",
  "wiring",
  "observe/TracingOff",
  "pipeline/PageQueue",
  "bench"
].map((f) => (f.includes("/") ? `test/${f}.test.ts` : `test/${f}/**/*.test.ts`))
const CHECK_EXCLUDE = [
  // child processes, kills, the sandbox's own behaviour, pipelines run whole
  "test/load/Crash.test.ts",
  "test/load/Opening.test.ts",
  "test/load/GroupLanding.test.ts",
  "test/config/StrictSettings.test.ts",
  "test/service/Sandbox.test.ts"
]

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    isolate: false,
    // the slowest files first, so the two forks end together (a fresh clone has no timings)
    sequence: { sequencer: HeavyFirst },
    reporters: ["default", "json"],
    outputFile: { json: ".vitest-report.json" },
    // the compiled CLI the child-process suites run (dist/, built once per run)
    globalSetup: CHECK ? [] : ["test/support/globalSetup.ts"],
    // the temp folders each test file made go when it ends
    setupFiles: ["test/support/tempDirsCleanup.ts"],
    projects: WALKTHROUGH
      ? [{ extends: true, test: { name: "walkthrough", include: WALKTHROUGH_FILES } }]
      : CHECK
        ? [
            {
              extends: true,
              test: { name: "check", include: CHECK_INCLUDE, exclude: CHECK_EXCLUDE }
            }
          ]
        : [
            {
              extends: true,
              test: { name: "test", include: ["test/**/*.test.ts"], exclude: [...(CHAOS ? [] : CHAOS_ONLY), ...WALKTHROUGH_FILES] }
            }
          ]
  }
})
