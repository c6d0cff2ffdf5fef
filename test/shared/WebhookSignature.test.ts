/**
 * The signing scheme (Standard Webhooks 1.0, assumed): the specification's published test
 * vector, several secrets, and what `verify` refuses.
 */
import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { parseSecrets, sign, signatureHeader, verify } from "../../src/shared/WebhookSignature.js"

// The Standard Webhooks specification's test vector.
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
const TS = 1614265330
const BODY = '{"test": 2432232314}'
const SIG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

const headers = (h: Record<string, string>) => (name: string) => h[name]
const check = (sig: string, secrets: ReadonlyArray<string>, opts: { ts?: number; now?: number; body?: string } = {}) =>
  verify({
    header: headers({ "webhook-id": ID, "webhook-timestamp": String(opts.ts ?? TS), "webhook-signature": sig }),
    body: Buffer.from(opts.body ?? BODY),
    secrets: secrets.map((s) => Redacted.make(s)),
    nowSeconds: opts.now ?? TS
  })

describe("Signature", () => {
  it("reproduces the Standard Webhooks reference signature", () => {
    expect(sign(SECRET, ID, TS, BODY)).toBe(SIG)
    expect(check(SIG, [SECRET])).toEqual({ ok: true, id: ID, timestamp: TS })
  })

  it("signs once per secret and accepts when any entry matches any secret", () => {
    const other = "whsec_c2VjcmV0LW9mLWEtcm90YXRlZC1lbmRwb2ludA=="
    const header = signatureHeader([other, SECRET], ID, TS, BODY)
    expect(header.split(" ")).toEqual([sign(other, ID, TS, BODY), SIG])
    expect(check(header, [SECRET]).ok).toBe(true)
    expect(check(header, [other]).ok).toBe(true)
    expect(check(header, ["whsec_AAAA", "whsec_BBBB"])).toEqual({ ok: false, reason: "Forged" })
  })

  it("refuses tampered bodies, unknown versions, missing headers and timestamps outside 5 minutes", () => {
    expect(check(SIG, [SECRET], { body: '{"test": 2432232315}' })).toEqual({ ok: false, reason: "Forged" })
    expect(check(SIG.replace("v1,", "v2,"), [SECRET])).toEqual({ ok: false, reason: "Forged" })
    expect(verify({ header: () => undefined, body: Buffer.from(BODY), secrets: [Redacted.make(SECRET)], nowSeconds: TS })).toEqual({
      ok: false,
      reason: "MissingHeaders"
    })
    expect(check(SIG, [SECRET], { now: TS + 301 })).toEqual({ ok: false, reason: "Stale" })
    expect(check(SIG, [SECRET], { now: TS - 301 })).toEqual({ ok: false, reason: "Future" })
    expect(check(SIG, [SECRET], { now: TS + 300 }).ok).toBe(true)
    expect(
      verify({
        header: headers({ "webhook-id": ID, "webhook-timestamp": "16142653.5", "webhook-signature": SIG }),
        body: Buffer.from(BODY),
        secrets: [Redacted.make(SECRET)],
        nowSeconds: TS
      })
    ).toEqual({ ok: false, reason: "BadTimestamp" })
  })

  it("reads several secrets from one redacted value and never prints them", () => {
    const secrets = parseSecrets(Redacted.make(`${SECRET}, whsec_b2xk  whsec_bmV3`))
    expect(secrets.map(Redacted.value)).toEqual([SECRET, "whsec_b2xk", "whsec_bmV3"])
    expect(String(secrets[0])).not.toContain("MfKQ")
  })
})
