import { defineConfig } from "vitest/config"

/**
 * Two projects, one run and one summary (`make test`): `unit` runs in-process tests (the sandbox
 * over HTTP, DuckDB files, Parquet read back); `cli` runs the suites that drive the real CLI as
 * child processes (signals, kills, exit codes, make targets), which are heavier and time-bound.
 * Both share one pool of at most two forks (the machines have two cores).
 *
 * Test files share their worker's modules (`isolate: false`): a fresh module graph per file
 * (Effect, DuckDB's bindings, the sandbox) cost about 1.1 s of CPU per file (41 s against 18 s of
 * CPU for the 21 files of test/normalize, test/config and test/service; the `cli` project's
 * collect time fell from about 140 s to 9 s). Their state lives in what each test starts
 * (sandboxes, warehouses, temp dirs), not in modules; the in-process CLI helpers put back the
 * environment and the working directory they change.
 */
export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    isolate: false,
    reporters: ["default", "json"],
    outputFile: { json: ".vitest-report.json" },
    // the compiled CLI the child-process suites run (dist/, built once per run)
    globalSetup: ["test/support/globalSetup.ts"],
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: ["test/cli/**", "test/reliability/**"] }
      },
      { extends: true, test: { name: "cli", include: ["test/cli/**/*.test.ts", "test/reliability/**/*.test.ts"] } }
    ]
  }
})
