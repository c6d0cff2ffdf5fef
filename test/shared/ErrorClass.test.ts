/**
 * Every stop names its cause and whether a rerun helps (`rerunHint`): what a rerun does after a
 * payment, a refused credential, a service still failing or refusing after its retries; nothing
 * where the message says it already (a cap, a shape) or a rerun as it is does not help.
 */
import { describe, expect, it } from "vitest"
import { exitCodeOf, rerunHint } from "../../src/shared/ErrorClass.js"
import {
  AuthenticationFailed,
  BudgetExhausted,
  PaymentRequired,
  PlatformProblem,
  TransportError,
  UnexpectedShape
} from "../../src/service/ServiceError.js"

describe("rerunHint", () => {
  it("says what a rerun does for each ending the service caused", () => {
    const payment = new PaymentRequired({ operation: "plot_search" })
    expect(exitCodeOf(payment)).toBe(4)
    expect(rerunHint(payment)).toBe("; the run is paused: a rerun after the top-up resumes from its checkpoints")
    expect(rerunHint(new AuthenticationFailed({ reason: "credential_revoked", host: "platform", operation: "plot_search" }))).toMatch(
      /^; fix the credentials/
    )
    const limited = new PlatformProblem({ reason: "rate_limited", status: 429, operation: "plot_search", retryAfterMs: 90_000 })
    expect(exitCodeOf(limited)).toBe(3)
    expect(rerunHint(limited)).toContain("a rerun after its Retry-After (90 s) resumes from its checkpoints")
    const outage = new PlatformProblem({ reason: "bad_gateway", status: 502, operation: "plot_search" })
    expect(rerunHint(outage)).toBe(
      "; the service still failed after the retries: the run is paused, and a rerun resumes from its checkpoints once it answers"
    )
    expect(rerunHint(new TransportError({ reason: "Timeout", operation: "plot_search" }))).toContain("a rerun resumes")
  })

  it("adds nothing where the message says it already or a rerun as it is does not help", () => {
    expect(rerunHint(new UnexpectedShape({ operation: "plot_search", host: "platform", detail: "x", bodyStart: "{}" }))).toBe("")
    expect(rerunHint(new BudgetExhausted({ reason: "UnitCap", used: 10, limit: 10, wanted: 1, operation: "plot_search" }))).toBe("")
    expect(rerunHint(new PlatformProblem({ reason: "invalid_request", status: 400, operation: "plot_search" }))).toBe("")
    expect(rerunHint(new Error("boom"))).toBe("")
    // a body in a coding the client cannot decode is exit 7 (a shape), not an outage a rerun waits out
    const coding = new TransportError({ reason: "Encoding", operation: "plot_search" })
    expect(exitCodeOf(coding)).toBe(7)
    expect(rerunHint(coding)).toBe("")
  })
})
