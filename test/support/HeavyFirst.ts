/**
 * The order `make test` starts its files in: the slowest first, so the two forks end together.
 *
 * Vitest's own order starts the files it has timings for longest first, but a fresh clone (CI) has
 * none, and then it starts the largest files first. Some slow files are small (the fault
 * matrices' 300 bytes import their work), and started last they left one fork running alone for
 * the suite's last ~30 s. Files named here go first, in this order (their time in a clean run,
 * 2 cores, 2026-11-27: `.vitest-report.json`); the rest follow in vitest's order.
 * `test/support/HeavyFirst.test.ts` checks that every name is still a test file.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node"

export const HEAVY_FILES = [
  "test/reliability/dialects.test.ts", // 85 s
  "test/pipelines/refresh.test.ts", // 41 s
  "test/probe/ProbeDialects.test.ts", // 40 s
  "test/cli/exit-codes.test.ts", // 38 s
  "test/reliability/fault-matrix-network.test.ts", // 27 s
  "test/reliability/closing-dialects.test.ts", // 27 s
  "test/cli/live-status.test.ts", // 24 s
  "test/cli/signals.test.ts", // 23 s
  "test/cli/resume.test.ts", // 22 s
  "test/reliability/fault-matrix-account.test.ts", // 22 s
  "test/pipelines/new-builtin.test.ts", // 21 s
  "test/reliability/responses.test.ts", // 21 s
  "test/cli/backlog.test.ts", // 18 s
  "test/pipelines/closing.test.ts", // 15 s
  "test/library/typed.test.ts", // 15 s
  "test/load/History.test.ts", // 15 s
  "test/load/GroupLanding.test.ts", // 13 s
  "test/pipeline/Resume.test.ts", // 12 s
  "test/pipeline/Engine.test.ts", // 11 s
  "test/cli/shared-warehouse.test.ts", // 11 s
  "test/load/Opening.test.ts", // 11 s
  "test/load/Crash.test.ts" // 11 s
]

export class HeavyFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const root = this.ctx.config.root
    const rank = (spec: TestSpecification) => {
      const i = HEAVY_FILES.indexOf(spec.moduleId.slice(root.length + 1))
      return i < 0 ? HEAVY_FILES.length : i
    }
    // Array.prototype.sort is stable: the files not named keep vitest's order
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}
