/**
 * The plan refined as first pages tell their counts (`makePlanRefiner`): slices told come to
 * their counts over their first page's records, the others stay at the plan's mean a slice, and
 * the sum is whole pages (a run's summary never expects half a page).
 */
import { describe, expect, it } from "vitest"
import { makePlanRefiner, type Plan, toldPages } from "../../src/pipeline/Planner.js"
import type { SliceRecord } from "../../src/load/PageCommit.js"

const plan = (over: Partial<Plan>): Plan => ({
  pipeline: "sourcing-search",
  operation: "sourcing_search",
  slices: 2,
  requests: 7,
  pages: 7,
  unitsPerRequest: 1,
  units: 7,
  eur: 0.28,
  exact: false,
  costSource: "assumed",
  assumedPerRequest: 1,
  fullUnits: 7,
  ...over
})

describe("makePlanRefiner", () => {
  it("sums the slices told and the plan's mean for the rest, in whole pages", () => {
    const r = makePlanRefiner(plan({}))
    expect(r.expected()).toEqual({ pages: 7, units: 7, exact: false })
    // one place told 1,001 records in pages of 5: 201 pages, the other at 3.5 -> 205 (not 204.5)
    expect(r.first("PT", 1_001, 5)).toBe(true)
    expect(r.expected()).toEqual({ pages: 205, units: 205, exact: false })
    expect(r.first("PT", 1_001, 5)).toBe(false)
    expect(r.first("ES:18", 40, 5)).toBe(true)
    expect(r.expected()).toEqual({ pages: 209, units: 209, exact: true })
  })

  it("an exact plan stays as planned", () => {
    const r = makePlanRefiner(plan({ exact: true, pages: 500, requests: 500, units: 0, slices: 500 }))
    r.first("a", 100, 10)
    expect(r.expected()).toEqual({ pages: 500, units: 0, exact: true })
  })

  it("a resumed run starts from what its slices told before the stop (toldPages)", () => {
    const slice = (over: Partial<SliceRecord>): SliceRecord => ({
      slice: "x",
      declared: null,
      received: 0,
      landed: 0,
      rejected: 0,
      distinct: null,
      pages: 0,
      endedBy: null,
      endDetail: null,
      done: false,
      ...over
    })
    const told = toldPages([
      slice({ slice: "done", declared: 42, received: 42, pages: 5, done: true }),
      slice({ slice: "going", declared: 101, received: 30, pages: 3 }),
      slice({ slice: "uncounted", received: 30, pages: 3 })
    ])
    expect([...told]).toEqual([
      ["done", 5],
      ["going", 11]
    ])
    const r = makePlanRefiner(plan({ slices: 3, pages: 3, units: 3 }), told)
    // the third slice at the plan's mean (1), until its first page here tells it
    expect(r.expected()).toEqual({ pages: 17, units: 17, exact: false })
    expect(r.first("going", 101, 10)).toBe(false)
  })
})
