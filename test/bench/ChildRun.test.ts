/**
 * The bench's ratio text (`bench/ChildRun.ts`, `showRatio`): a median that two decimals would
 * round onto its target's bound is shown with the digits that tell it from the bound, so a line
 * never reads "0.40 ... >= 0.40 ... NOT met".
 */
import { describe, expect, it } from "vitest"
import { showRatio } from "../../bench/ChildRun.js"

describe("showRatio", () => {
  it("shows two decimals, and more only where two would round a median onto its bound", () => {
    expect(showRatio({ min: 0.18, median: 0.28, max: 0.7 }, 0.4)).toBe("0.28 (0.18-0.70)")
    expect(showRatio({ min: 0.38, median: 0.39981, max: 0.42 }, 0.4)).toBe("0.3998 (0.38-0.42)")
    expect(showRatio({ min: 1.0, median: 1.1042, max: 1.2 }, 1.1)).toBe("1.104 (1.00-1.20)")
    // on the bound, or without one: two decimals
    expect(showRatio({ min: 0.38, median: 0.4, max: 0.42 }, 0.4)).toBe("0.40 (0.38-0.42)")
    expect(showRatio({ min: 0.38, median: 0.39981, max: 0.42 })).toBe("0.40 (0.38-0.42)")
  })
})
