/**
 * Chaos on a paged source (sourcing-search, one country = one cursor slice): the real CLI is
 * SIGKILLed 5 times (10 under `make chaos`) at random instants and resumed; the warehouse must equal a clean run's.
 * The full harness (`make chaos`, tools/chaos.ts) does the same with 50 kills.
 */
import { describe } from "vitest"
import { chaosTest } from "./chaosCheck.js"

describe("chaos: paged source", () => chaosTest("sourcing-search", 11, 1))
