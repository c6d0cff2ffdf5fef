/**
 * OpenTelemetry export against a real OTLP/HTTP receiver (node:http on 127.0.0.1): a run of three
 * pipelines on both hosts with OTEL_EXPORTER_OTLP_ENDPOINT set sends its spans and metrics as
 * OTLP JSON; the spans form the tree run > slice > page > request (and run > landed group), the
 * request spans' units add up to the ledger, the run gauges match `_runs`, and no secret (API key,
 * password, e-mail, any token the token host issued, the receiver's own header) is in any body.
 * An unreachable endpoint changes nothing but one warning line and a bounded wait.
 */
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SANDBOX_API_KEY, SANDBOX_USER } from "../../src/sandbox/Credentials.js"
import { cli } from "../support/inProcessCli.js"
import { startProxy } from "../reliability/proxy.js"
import { startTestSandbox } from "../support/sandbox.js"
import { queryWarehouse } from "./support.js"
import { sandboxEnv, settingsFile } from "../support/cli.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>

interface Received {
  readonly path: string
  readonly contentType: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
}

const startReceiver = async () => {
  const received: Array<Received> = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        contentType: String(req.headers["content-type"]),
        headers: req.headers,
        body: Buffer.concat(chunks)
      })
      const ok = req.method === "POST" && (req.url === "/v1/traces" || req.url === "/v1/metrics")
      res.writeHead(ok ? 200 : 404, { "content-type": "application/json" }).end(ok ? "{}" : "")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

interface Span {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: Record<string, unknown>
}

type AttributeValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean }
const attributesOf = (list: ReadonlyArray<{ key: string; value: AttributeValue }>): Record<string, unknown> =>
  Object.fromEntries(
    list.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue))
    ])
  )

const COLLECTOR_SECRET = "collector-secret-7f3a9c21"

describe("OTLP export", () => {
  let sandbox: Sandbox
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let token: Awaited<ReturnType<typeof startProxy>>
  let dir: string
  let config: string
  const tokens = new Set<string>()
  let ran: { code: number; stderr: string; ms: number }
  const spans: Array<Span> = []
  let resource: Record<string, unknown> = {}

  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 600 } })
    receiver = await startReceiver()
    // every token the token host issues is a secret too
    token = await startProxy(sandbox.apiUrl)
    token.setRewrite(async (_seen, upstream) => {
      const a = await upstream()
      for (const m of a.body.matchAll(/"(?:access|refresh)(?:_token)?"\s*:\s*"([^"]{12,})"/g)) tokens.add(m[1]!)
      return a
    })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-otlp-"))
    const ids = [1, 2, 3].map((i) => sandbox.context.world.propertyIdOf(i))
    config = settingsFile(
      dir,
      { platformUrl: sandbox.platformUrl, apiUrl: token.url },
      {
        pipelines: {
          "sourcing-search": { params: { country: "PT", pageSize: 5, maxPages: 3, sample: true } },
          "properties-by-id": { params: { ids } },
          "plots-germany": { params: { pageSize: 5, maxPages: 2, sample: true } }
        },
        sets: { both: ["sourcing-search", "properties-by-id", "plots-germany"] }
      }
    )
    const started = Date.now()
    const r = await cli(["run", "both", "--config", config], {
      ...sandboxEnv(),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: "etl-under-test",
      OTEL_EXPORTER_OTLP_HEADERS: `x-collector-key=${COLLECTOR_SECRET}`
    })
    ran = { code: r.code, stderr: r.stderr, ms: Date.now() - started }
    for (const b of receiver.received.filter((x) => x.path === "/v1/traces")) {
      const body = JSON.parse(b.body.toString("utf8"))
      for (const rs of body.resourceSpans) {
        resource = attributesOf(rs.resource.attributes)
        for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ ...s, attributes: attributesOf(s.attributes) })
      }
    }
  }, 120_000)
  afterAll(async () => {
    await receiver.close()
    await token.close()
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("the run succeeds and its traces arrive as OTLP JSON, with the service name and the receiver's headers", () => {
    expect(ran.code, ran.stderr).toBe(0)
    expect(ran.stderr).not.toContain("warning: telemetry")
    const traces = receiver.received.filter((x) => x.path === "/v1/traces")
    expect(traces.length).toBeGreaterThan(0)
    for (const t of traces) {
      expect(t.contentType).toContain("application/json")
      expect(t.headers["x-collector-key"]).toBe(COLLECTOR_SECRET)
    }
    expect(resource["service.name"]).toBe("etl-under-test")
  })

  it("one run span per pipeline; slices, pages, landed groups and requests parented under it; request units add up to the ledger", async () => {
    const byId = new Map(spans.map((s) => [s.spanId, s]))
    const runOf = (s: Span): Span | undefined => {
      let p: Span | undefined = s
      while (p && p.name !== "Runner.run") p = p.parentSpanId ? byId.get(p.parentSpanId) : undefined
      return p
    }
    const runs = spans.filter((s) => s.name === "Runner.run")
    expect(runs.map((s) => s.attributes.pipeline).sort()).toEqual(["plots-germany", "properties-by-id", "sourcing-search"])
    const records = await queryWarehouse(
      path.join(dir, "warehouse.duckdb"),
      `SELECT run_id, pipeline, status, pages, (SELECT coalesce(sum(units), 0) FROM _ledger l WHERE l.run_id = r.run_id) AS units FROM _runs r`
    )
    for (const run of runs) {
      const record = records.find((r) => r.pipeline === run.attributes.pipeline)!
      expect(run.attributes["run.id"]).toBe(record.run_id)
      expect(run.attributes["run.status"]).toBe(record.status)
      expect(run.attributes["run.pages"]).toBe(Number(record.pages))
      const under = spans.filter((s) => s !== run && runOf(s) === run)
      const slices = under.filter((s) => s.name === "Extract.slice")
      const pages = under.filter((s) => s.name === "Extract.page")
      const groups = under.filter((s) => s.name === "Land.group")
      const requests = under.filter((s) => s.name === "HostTransport.send")
      expect(slices.length, `${run.attributes.pipeline} slices`).toBeGreaterThan(0)
      for (const s of slices) expect(s.parentSpanId).toBe(run.spanId)
      for (const g of groups) expect(g.parentSpanId).toBe(run.spanId)
      expect(groups.reduce((n, g) => n + Number(g.attributes.pages), 0)).toBe(Number(record.pages))
      expect(pages.length).toBeGreaterThanOrEqual(Number(record.pages))
      for (const p of pages) expect(byId.get(p.parentSpanId!)?.name).toBe("Extract.slice")
      expect(requests.length).toBeGreaterThan(0)
      for (const r of requests) {
        expect(typeof r.attributes.method).toBe("string")
        expect(typeof r.attributes.operation).toBe("string")
        expect(r.attributes.status).toMatch(/^\d{3}$|^[A-Za-z]+$/)
        expect(typeof r.attributes.units).toBe("number")
        expect(String(r.attributes["url.path"])).toMatch(/^\//)
      }
      // every request of a page hangs under that page
      for (const r of requests.filter((r) => r.attributes.operation !== "login")) {
        let p = byId.get(r.parentSpanId!)
        while (p && p.name !== "Extract.page" && p.name !== "Runner.run") p = byId.get(p.parentSpanId!)
        expect(p?.name, `${r.attributes.operation} under a page`).toBe("Extract.page")
      }
      expect(
        requests.reduce((n, r) => n + Number(r.attributes.units), 0),
        `${run.attributes.pipeline} units`
      ).toBe(Number(record.units))
    }
    // the HTTP client's own spans (full URL, request headers) are never exported, nothing from the HTTP client's own spans
    expect(spans.some((s) => s.name.startsWith("http.client"))).toBe(false)
  })

  it("metrics arrive: the run gauges as in _runs, and the request counters", async () => {
    const bodies = receiver.received.filter((x) => x.path === "/v1/metrics")
    expect(bodies.length).toBeGreaterThan(0)
    const last = JSON.parse(bodies.at(-1)!.body.toString("utf8"))
    const metrics = last.resourceMetrics.flatMap((r: any) => r.scopeMetrics.flatMap((s: any) => s.metrics)) as Array<any>
    const points = (name: string) => {
      const m = metrics.find((x) => x.name === name)
      expect(m, name).toBeDefined()
      return ((m.gauge ?? m.sum).dataPoints as Array<any>).map((p) => ({
        attributes: attributesOf(p.attributes),
        value: Number(p.asDouble ?? p.asInt)
      }))
    }
    const records = await queryWarehouse(path.join(dir, "warehouse.duckdb"), `SELECT pipeline, units_charged, pages FROM _runs`)
    for (const r of records) {
      const units = points("estate_etl_run_units").find((p) => p.attributes.pipeline === r.pipeline)
      expect(units?.value, String(r.pipeline)).toBe(Number(r.units_charged))
      expect(points("estate_etl_run_pages").find((p) => p.attributes.pipeline === r.pipeline)?.value).toBe(Number(r.pages))
    }
    const requests = points("estate_etl_requests_total")
    expect(requests.some((p) => p.attributes.operation !== undefined && p.attributes.status === "200" && p.value > 0)).toBe(true)
    // the bill's account gauges, as the metrics file has them: the month's units and the last balance the ledger holds
    const [ledger] = await queryWarehouse(
      path.join(dir, "warehouse.duckdb"),
      `SELECT sum(units) AS units, arg_max(units_remaining, "at") FILTER (WHERE units_remaining IS NOT NULL) AS remaining FROM _ledger`
    )
    expect(Number(ledger!.units)).toBeGreaterThan(0)
    expect(points("estate_etl_units_month_to_date")[0]!.value).toBe(Number(ledger!.units))
    expect(points("estate_etl_eur_month_to_date")[0]!.value).toBeCloseTo(Number(ledger!.units) * 0.04, 9)
    expect(points("estate_etl_units_remaining")[0]!.value).toBe(Number(ledger!.remaining))
  })

  it("no secret in anything the receiver got: API key, password, e-mail, tokens, the receiver's header", () => {
    expect(tokens.size).toBeGreaterThanOrEqual(1)
    const secrets = [SANDBOX_API_KEY, SANDBOX_USER.password, SANDBOX_USER.email, COLLECTOR_SECRET, ...tokens]
    expect(receiver.received.length).toBeGreaterThan(1)
    for (const r of receiver.received) {
      const text = r.body.toString("latin1")
      for (const s of secrets) expect(text.includes(s), `${s.slice(0, 6)}... in ${r.path}`).toBe(false)
      expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/)
      expect(text.toLowerCase()).not.toContain("authorization")
    }
  })

  it("protobuf on request (OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf), with no secret in its bytes", async () => {
    const before = receiver.received.length
    const r = await cli(["run", "plots-germany", "--config", config], {
      ...sandboxEnv(),
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf"
    })
    expect(r.code, r.stderr).toBe(0)
    const sent = receiver.received.slice(before)
    expect(sent.map((x) => x.path).sort()).toContain("/v1/traces")
    for (const x of sent) {
      expect(x.contentType).toContain("protobuf")
      const bytes = x.body.toString("latin1")
      if (x.path === "/v1/traces") expect(bytes).toContain("Runner.run")
      for (const s of [SANDBOX_API_KEY, SANDBOX_USER.password, ...tokens]) expect(bytes.includes(s)).toBe(false)
    }
  })

  it("an endpoint nobody listens on: the run ends as without it, one warning line, a bounded wait", async () => {
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const plain = Date.now()
    const base = await cli(["run", "plots-germany", "--config", config], sandboxEnv())
    const plainMs = Date.now() - plain
    const started = Date.now()
    const r = await cli(["run", "plots-germany", "--config", config], {
      ...sandboxEnv(),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`
    })
    const ms = Date.now() - started
    expect(base.code).toBe(0)
    expect(r.code, r.stderr).toBe(0)
    const warnings = r.stderr.split("\n").filter((l) => l.startsWith("warning: telemetry"))
    expect(warnings.length, r.stderr).toBe(1)
    console.log(`unreachable endpoint: ${ms} ms against ${plainMs} ms without telemetry; warning: ${warnings[0]}`)
    expect(ms - plainMs).toBeLessThan(3_000)
  })
})
