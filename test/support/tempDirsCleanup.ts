/** vitest's `setupFiles`: the temp folders a test file made (`tempDirs.ts`) go when it ends. */
import { afterAll } from "vitest"
import { removeTempDirs } from "./tempDirs.js"

afterAll(removeTempDirs)
