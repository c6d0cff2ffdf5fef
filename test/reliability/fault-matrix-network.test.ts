/** The fault matrix, part 1: 5xx, resets, slow responses, truncated bodies, 429 bursts. */
import { faultMatrix } from "./faultMatrix.js"
import { faultScenarios } from "./faults.js"

faultMatrix("fault matrix: network and server faults", faultScenarios().slice(0, 5))
