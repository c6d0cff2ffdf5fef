/**
 * Temp folders the tests make (warehouses, webhook spools), removed after each test file by
 * `tempDirsCleanup.ts` (vitest's `setupFiles`): a suite run left ~110 of them in the machine's
 * temp folder. A folder a test is still using when its file ends is not one it can need after.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as nodePath from "node:path"

const made = new Set<string>()

/** A new folder under the machine's temp folder, removed when the test file ends. */
export const makeTempDir = (prefix: string): string => {
  const dir = fs.mkdtempSync(nodePath.join(os.tmpdir(), prefix))
  made.add(dir)
  return dir
}

export const removeTempDirs = (): void => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true })
  made.clear()
}
