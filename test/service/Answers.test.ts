/**
 * What the clients make of answers the spec leaves room for (issue "Pay once for each record"):
 * a body in a content coding (the request names gzip, deflate and br and they are decoded; any
 * other coding is a named failure, exit 7, before any shape check), integers beyond 2^53 kept to
 * the last digit, and one exit code (7) for an answer of the wrong shape, list or single record.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as zlib from "node:zlib"
import { PlatformClient } from "../../src/service/PlatformClient.js"
import { TokenClient } from "../../src/service/TokenClient.js"
import { exitCodeOf } from "../../src/shared/ErrorClass.js"
import { fastSettings, withClients } from "./clients.js"
import { localServer, type Reply } from "./localServer.js"

const page = {
  count: 2,
  returned: 2,
  results: [
    { id: "a", price_eur: 1 },
    { id: "b", price_eur: 2 }
  ]
}
const text = JSON.stringify(page)
const encoded = (coding: string, bytes: Buffer): Reply => ({
  headers: { "content-type": "application/json", "content-encoding": coding, "svc-units-charged": "40", "svc-request-id": "req_1" },
  body: bytes
})

describe("content codings", () => {
  for (const [coding, bytes] of [
    ["gzip", zlib.gzipSync(text)],
    ["deflate", zlib.deflateSync(text)],
    ["br", zlib.brotliCompressSync(text)]
  ] as const) {
    it.scoped(`asks for gzip, deflate, br and reads a ${coding} answer`, () =>
      Effect.gen(function* () {
        const server = yield* localServer(() => encoded(coding, bytes))
        const r = yield* Effect.flatMap(PlatformClient, (c) => c.premisesSearch({ limit: 2 })).pipe(
          withClients(fastSettings(server.url, server.url))
        )
        expect(r.page.records).toEqual(page.results)
        expect(r.units.charged).toBe(40)
        expect(server.requests[0]!.headers["accept-encoding"]).toBe("gzip, deflate, br")
      })
    )
  }

  it.scoped("an answer in a coding the client cannot decode fails naming it, exit 7, never 'not valid JSON'", () =>
    Effect.gen(function* () {
      const server = yield* localServer(() => encoded("zstd", Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 1, 2, 3])))
      const error = yield* Effect.flip(
        Effect.flatMap(PlatformClient, (c) => c.premisesSearch({ limit: 2 })).pipe(withClients(fastSettings(server.url, server.url)))
      )
      expect(error.message).toMatch(/encoded as "zstd", which this client cannot decode \(it asks for gzip, deflate, br\)/)
      expect((error as { unitsCharged?: number }).unitsCharged).toBe(40)
      expect(exitCodeOf(error)).toBe(7)
      // a charged answer is never retried
      expect(server.requests).toHaveLength(1)
    })
  )

  it.scoped("the token host's login answer gzip-encoded is read (not blamed on its shape)", () =>
    Effect.gen(function* () {
      const server = yield* localServer((req) =>
        req.url === "/login"
          ? encoded("gzip", zlib.gzipSync(JSON.stringify({ access_token: "a.b.c", refresh_token: "d.e.f" })))
          : encoded("gzip", zlib.gzipSync(JSON.stringify([{ group: "floor", names: ["top"] }])))
      )
      const r = yield* Effect.flatMap(TokenClient, (c) => c.referenceFeatures()).pipe(withClients(fastSettings(server.url, server.url)))
      expect(r.body).toEqual([{ group: "floor", names: ["top"] }])
    })
  )
})

describe("exact integers", () => {
  it.scoped("an id beyond 2^53 keeps every digit through the client (a bigint), and its raw body is as sent", () =>
    Effect.gen(function* () {
      const raw =
        '{"count":1,"next":null,"previous":null,"results":[{"alert_id":9007199254740993,"price":1.5e3,"ref":"12345678901234567890"}]}'
      const server = yield* localServer((req) =>
        req.url === "/login"
          ? { body: { access_token: "a.b.c", refresh_token: "d.e.f" } }
          : { headers: { "content-type": "application/json" }, body: raw }
      )
      const r = yield* Effect.flatMap(TokenClient, (c) => c.legacyFeedAlerts(1)).pipe(withClients(fastSettings(server.url, server.url)))
      const alert = r.page.records[0] as { alert_id: unknown; price: unknown; ref: unknown }
      expect(alert.alert_id).toBe(9007199254740993n)
      expect(alert.price).toBe(1500)
      expect(alert.ref).toBe("12345678901234567890")
      expect(r.raw).toBe(raw)
    })
  )
})

describe("one exit code per cause", () => {
  it.scoped("a single-record answer of the wrong shape is UnexpectedShape (exit 7), as a list answer is", () =>
    Effect.gen(function* () {
      const server = yield* localServer((req) =>
        req.url.startsWith("/v1/property-sourcing/properties/")
          ? { headers: { "content-type": "application/json", "svc-units-charged": "1" }, body: [1, 2, 3] }
          : req.url === "/login"
            ? { body: { access_token: "a.b.c", refresh_token: "d.e.f" } }
            : { body: { not: "a list" } }
      )
      const settings = fastSettings(server.url, server.url)
      const single = yield* Effect.flip(Effect.flatMap(PlatformClient, (c) => c.sourcingProperty("prop_1")).pipe(withClients(settings)))
      expect([single._tag, single.message]).toEqual(["UnexpectedShape", expect.stringMatching(/not the documented shape/)])
      expect(exitCodeOf(single)).toBe(7)
      expect((single as { unitsCharged?: number }).unitsCharged).toBe(1)
      const token = yield* Effect.flip(Effect.flatMap(TokenClient, (c) => c.referenceFeatures()).pipe(withClients(settings)))
      expect(token._tag).toBe("UnexpectedShape")
      expect(exitCodeOf(token)).toBe(7)
    })
  )

  it.scoped("a write the service answered 2xx with an unreadable body is a success that says so, never an error to retry", () =>
    Effect.gen(function* () {
      const server = yield* localServer((req) =>
        req.url === "/login" ? { body: { access_token: "a.b.c", refresh_token: "d.e.f" } } : { status: 201, body: "created, thanks" }
      )
      const r = yield* Effect.flatMap(TokenClient, (c) => c.alertsApiFeedCreate({ name: "cuts", filter: {} })).pipe(
        withClients(fastSettings(server.url, server.url))
      )
      expect(r.status).toBe(201)
      expect(r.unreadable).toBe("the body is not JSON")
      expect(server.requests.filter((q) => q.url === "/alerts-api/feeds")).toHaveLength(1)
    })
  )
})
