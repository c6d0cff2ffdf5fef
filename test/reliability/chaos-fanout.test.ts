/**
 * Chaos on a fan-out source (seller-leads, five points = five offset-paged slices, two at once):
 * the real CLI is SIGKILLed 5 times (10 under `make chaos`) at random instants and resumed; the warehouse must equal a
 * clean run's; a kill costs at most one page (the one paid call in flight).
 */
import { describe } from "vitest"
import { chaosTest } from "./chaosCheck.js"

describe("chaos: fan-out source", () => chaosTest("seller-leads", 23, 1))
