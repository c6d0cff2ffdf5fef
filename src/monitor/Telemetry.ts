/**
 * OpenTelemetry for runs: when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, a command's spans and
 * metrics go to that OTLP/HTTP receiver (`@effect/opentelemetry`, no OpenTelemetry SDK). Spans:
 * one per run (`Runner.run`), per slice (`Extract.slice`), per page (`Extract.page`), per landed
 * page group (`Land.group`) and per request (`HostTransport.send`); the full list with attributes
 * is in docs/MONITORING.md. Metrics: the run figures of `RunFigures.ts` as gauges, the bill's
 * account gauges (`BillMetrics.ts`: balance, month to date, forecast), and request counters
 * (`observe/Instruments.ts`).
 *
 * Environment (the OpenTelemetry names): `OTEL_EXPORTER_OTLP_ENDPOINT` (base URL; `/v1/traces`
 * and `/v1/metrics` are appended), `OTEL_SERVICE_NAME` (default `estate-etl`),
 * `OTEL_EXPORTER_OTLP_HEADERS` (`k=v,k2=v2`, sent to the receiver only, never shown),
 * `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/json`, the default here, or `http/protobuf`),
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SDK_DISABLED=true` (off).
 *
 * Without an endpoint no span is recorded at all (Effect's tracer is disabled for the command, so
 * `withSpan` makes a no-op span, and the request counters are skipped): measured, about a third of
 * the per-request overhead of the host clients (docs/BENCHMARKS.md).
 *
 * The exporter never fails or holds a run: exports happen beside the work, the flush at the end
 * of the command is bounded (`FLUSH_MS` per signal), and a receiver that cannot be reached costs
 * one warning line on stderr.
 */
import { Effect, Layer, Metric, Redacted } from "effect"
import type { RunSummary } from "../pipeline/Runner.js"
import type { Bill } from "../report/Bill.js"
import { billSamples } from "./BillMetrics.js"
import { samplesOf, type Sample } from "./RunFigures.js"

/** How long the end of a command waits for each signal's (traces, metrics) last export. */
export const FLUSH_MS = 1_000

export interface TelemetryConfig {
  readonly endpoint: string
  readonly serviceName: string
  /** Headers for the receiver (often a credential of the collector): redacted. */
  readonly headers: Redacted.Redacted<Record<string, string>>
  readonly protocol: "http/json" | "http/protobuf"
}

/** `k=v,k2=v2` with percent-encoded values, as the OpenTelemetry specification writes them. */
export const parseOtlpHeaders = (text: string | undefined): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const part of (text ?? "").split(",")) {
    const i = part.indexOf("=")
    if (i <= 0) continue
    const name = part.slice(0, i).trim()
    try {
      out[name] = decodeURIComponent(part.slice(i + 1).trim())
    } catch {
      out[name] = part.slice(i + 1).trim()
    }
  }
  return out
}

/** The telemetry the environment asks for, or none. */
export const telemetryConfig = (env: NodeJS.ProcessEnv = process.env): TelemetryConfig | undefined => {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim()
  if (!endpoint || env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return undefined
  return {
    endpoint: endpoint.replace(/\/+$/, ""),
    serviceName: env.OTEL_SERVICE_NAME?.trim() || "estate-etl",
    headers: Redacted.make(parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS)),
    protocol: env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() === "http/protobuf" ? "http/protobuf" : "http/json"
  }
}

/**
 * Runs `effect` with the OTLP exporters when the environment configures them (read when the
 * effect starts, after `.env`); they flush when it ends, however it ends. A receiver that did not
 * take every export is reported in one warning line.
 */
export const withTelemetry = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const config = telemetryConfig()
    if (config === undefined) return Effect.withTracerEnabled(effect, false)
    const watch = { failed: 0, pending: 0, last: "" }
    const layer = Layer.unwrapEffect(Effect.promise(() => import("./OtlpExport.js")).pipe(Effect.map((m) => m.otlpLayer(config, watch))))
    return effect.pipe(
      Effect.provide(layer),
      Effect.ensuring(
        Effect.sync(() => {
          if (watch.failed === 0 && watch.pending === 0) return
          const why = watch.pending > 0 ? `no answer within ${FLUSH_MS} ms` : watch.last
          const shown = config.endpoint.replace(/\/\/[^/@]*@/, "//")
          process.stderr.write(`warning: telemetry not delivered to ${shown} (${why}); the run itself is not affected\n`)
        })
      )
    )
  })

const gauges = new Map<string, Metric.Metric.Gauge<number>>()
const gauge = (name: string) => {
  let g = gauges.get(name)
  if (!g) gauges.set(name, (g = Metric.gauge(name)))
  return g
}

const setAll = (samples: ReadonlyArray<Sample>): Effect.Effect<void> =>
  Effect.forEach(
    samples,
    (s) =>
      Metric.set(
        Object.entries(s.labels).reduce((g, [k, v]) => Metric.tagged(g, k, v), gauge(s.name)),
        s.value
      ),
    { discard: true }
  )

/** Sets the run figures (`RunFigures.ts`) as gauges labelled by pipeline: the OTLP twin of the metrics file. */
export const recordRun = (summary: RunSummary): Effect.Effect<void> => setAll(samplesOf(summary, Date.now()))

/** Sets the bill's account gauges (no labels), as the metrics file has them. */
export const recordBill = (bill: Bill): Effect.Effect<void> => setAll(billSamples(bill))
