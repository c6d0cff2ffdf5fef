import { describe, expect, it } from "vitest"
import {
  parseRateLimit,
  parseRateLimitPolicy,
  parseRetryAfter,
  parseSeparateHeaders,
  readRateLimitHeaders,
  strictestRate,
  tightestState
} from "../../src/service/RateLimitHeaders.js"

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0)

describe("RateLimit-Policy (draft 11)", () => {
  it("reads quota and window of each policy", () => {
    expect(parseRateLimitPolicy(`"default";q=100;w=60`)).toEqual([{ name: "default", quota: 100, windowSeconds: 60 }])
    expect(parseRateLimitPolicy(`"burst";q=20;w=1, "daily";q=10000;w=86400;qu="requests";pk=:YWJj:`)).toEqual([
      { name: "burst", quota: 20, windowSeconds: 1 },
      { name: "daily", quota: 10000, windowSeconds: 86400, quotaUnit: "requests", partitionKey: "YWJj" }
    ])
  })
  it("reads the older bare-quota list", () => {
    expect(parseRateLimitPolicy("100;w=60")).toEqual([{ name: "default", quota: 100, windowSeconds: 60 }])
  })
  it("ignores malformed members and keeps the good ones", () => {
    expect(parseRateLimitPolicy(`"a";q=abc;w=1, "b";q=5;w=1, "c;q=1, "d";w=10`)).toEqual([{ name: "b", quota: 5, windowSeconds: 1 }])
    expect(parseRateLimitPolicy(`"z";q=0;w=1`)).toEqual([])
    expect(parseRateLimitPolicy("")).toEqual([])
    expect(parseRateLimitPolicy(undefined)).toEqual([])
    expect(parseRateLimitPolicy(`"x";q=-3;w=1`)).toEqual([])
  })
  it("defaults a missing window to one second", () => {
    expect(parseRateLimitPolicy(`"default";q=20`)).toEqual([{ name: "default", quota: 20, windowSeconds: 1 }])
  })
})

describe("RateLimit", () => {
  it("reads remaining and reset of each policy (draft 11)", () => {
    expect(parseRateLimit(`"default";r=50;t=30`)).toEqual([{ name: "default", remaining: 50, resetSeconds: 30 }])
    expect(parseRateLimit(`"burst";r=0;t=1, "daily";r=9000`)).toEqual([
      { name: "burst", remaining: 0, resetSeconds: 1 },
      { name: "daily", remaining: 9000 }
    ])
  })
  it("reads the older dictionary form", () => {
    expect(parseRateLimit("limit=100, remaining=50, reset=5")).toEqual([{ name: "default", remaining: 50, resetSeconds: 5, limit: 100 }])
  })
  it("ignores malformed fields", () => {
    expect(parseRateLimit(`"default";r=x;t=3`)).toEqual([])
    expect(parseRateLimit("limit=100, remaining=oops")).toEqual([])
    expect(parseRateLimit(`garbage;;;`)).toEqual([])
  })
})

describe("RateLimit-Limit / X-RateLimit-*", () => {
  it("reads the three headers; epoch resets become seconds from now", () => {
    expect(parseSeparateHeaders("100", "7", "12", NOW).state).toEqual({ name: "default", remaining: 7, resetSeconds: 12, limit: 100 })
    expect(parseSeparateHeaders("100", "7", String(NOW / 1000 + 40), NOW).state?.resetSeconds).toBe(40)
    expect(parseSeparateHeaders("100;w=60", "7", "12", NOW).policy).toEqual({ name: "default", quota: 100, windowSeconds: 60 })
    expect(parseSeparateHeaders("abc", "-1", "x", NOW)).toEqual({})
  })
  it("are read from a response when the structured fields are absent", () => {
    const h: Record<string, string> = { "x-ratelimit-limit": "60", "x-ratelimit-remaining": "3", "x-ratelimit-reset": "10" }
    const info = readRateLimitHeaders((n) => h[n], NOW)
    expect(info.states).toEqual([{ name: "default", remaining: 3, resetSeconds: 10, limit: 60 }])
  })
})

describe("Retry-After", () => {
  it("reads seconds", () => {
    expect(parseRetryAfter("0", NOW)).toBe(0)
    expect(parseRetryAfter("120", NOW)).toBe(120_000)
  })
  it("reads an HTTP date, relative to now; a past date is 0", () => {
    expect(parseRetryAfter(new Date(NOW + 7000).toUTCString(), NOW)).toBe(7000)
    expect(parseRetryAfter("Sat, 21 Nov 2026 11:00:00 GMT", NOW)).toBe(0)
  })
  it("ignores malformed values", () => {
    expect(parseRetryAfter("-5", NOW)).toBeUndefined()
    expect(parseRetryAfter("soon", NOW)).toBeUndefined()
    expect(parseRetryAfter("1.5", NOW)).toBeUndefined()
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined()
  })
})

describe("summaries", () => {
  it("picks the strictest rate and the tightest state", () => {
    const h: Record<string, string> = {
      "ratelimit-policy": `"burst";q=20;w=1, "minute";q=600;w=60`,
      ratelimit: `"burst";r=15;t=1, "minute";r=2;t=40`,
      "retry-after": "3"
    }
    const info = readRateLimitHeaders((n) => h[n], NOW)
    expect(strictestRate(info.policies)).toBe(10)
    expect(tightestState(info.states)).toEqual({ name: "minute", remaining: 2, resetSeconds: 40 })
    expect(info.retryAfterMs).toBe(3000)
  })
})
