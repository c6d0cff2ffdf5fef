/**
 * The receiver's secrets file: what a rotation writes, and how a running source follows the file
 * (re-read on change, a graceful secret dropped when its 24 hours are over, the last secrets kept
 * when the file disappears). Time is the TestClock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, TestClock } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { fileSecretSource, parseSecretsFile, ROTATION_GRACE_MS, rotatedSecrets, writeSecretsFile } from "../../src/webhooks/Secrets.js"
import { tempDir } from "./support.js"

const T0 = Date.parse("2026-06-01T12:00:00Z")
const held = (s: string, until?: number) => ({ secret: Redacted.make(s), ...(until !== undefined ? { until } : {}) })
const values = (xs: ReadonlyArray<Redacted.Redacted<string>>) => xs.map(Redacted.value)

describe("Secrets", () => {
  it("a rotation keeps only the new secret (immediate) or the earlier ones for 24 hours (graceful)", () => {
    const prev = [held("whsec_a"), held("whsec_b", T0 + 1_000), held("whsec_gone", T0 - 1)]
    expect(rotatedSecrets("whsec_n", prev, true, T0).map((s) => Redacted.value(s.secret))).toEqual(["whsec_n"])
    const graceful = rotatedSecrets("whsec_n", prev, false, T0)
    expect(graceful.map((s) => [Redacted.value(s.secret), s.until])).toEqual([
      ["whsec_n", undefined],
      ["whsec_a", T0 + ROTATION_GRACE_MS],
      ["whsec_b", T0 + 1_000]
    ])
    expect(
      parseSecretsFile("# c\n\nwhsec_x until=2026-06-02T00:00:00Z\n  whsec_y  # note\n").map((s) => [Redacted.value(s.secret), s.until])
    ).toEqual([
      ["whsec_x", Date.parse("2026-06-02T00:00:00Z")],
      ["whsec_y", undefined]
    ])
  })

  it.effect("follows the file: re-read on change, expired secrets dropped, last secrets kept when it disappears", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(T0)
      const path = nodePath.join(tempDir(), "secrets")
      // No file yet: the fallback is in force.
      const source = yield* fileSecretSource(path, [Redacted.make("whsec_env")])
      expect(values(yield* source.current)).toEqual(["whsec_env"])
      yield* writeSecretsFile(path, rotatedSecrets("whsec_new", [held("whsec_env")], false, T0))
      expect(values(yield* source.current)).toEqual(["whsec_new", "whsec_env"])
      yield* TestClock.adjust(ROTATION_GRACE_MS + 1)
      expect(values(yield* source.current)).toEqual(["whsec_new"])
      yield* writeSecretsFile(path, [held("whsec_newer")])
      expect(values(yield* source.current)).toEqual(["whsec_newer"])
      fs.rmSync(path)
      expect(values(yield* source.current)).toEqual(["whsec_newer"])
    })
  )
})
