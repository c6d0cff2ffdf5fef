/**
 * Without an OTLP endpoint a command records no spans and no request counters (they would go
 * nowhere; measured, a third of the host clients' per-request overhead). With one, both are on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, FiberRef, Metric } from "effect"
import { countRequest, requestsTotal } from "../../src/observe/Instruments.js"
import { withTelemetry } from "../../src/monitor/Telemetry.js"

const counted = (operation: string) =>
  Effect.map(
    Metric.value(Metric.tagged(Metric.tagged(Metric.tagged(requestsTotal, "operation", operation), "method", "GET"), "status", "200")),
    (s) => s.count
  )

describe("telemetry off", () => {
  it.effect("disables the tracer and skips the request counters", () =>
    Effect.gen(function* () {
      const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT
      try {
        const inside = yield* withTelemetry(
          Effect.gen(function* () {
            yield* countRequest({ operation: "off_op", method: "GET", status: "200", units: 1 })
            return yield* FiberRef.get(FiberRef.currentTracerEnabled)
          })
        )
        expect(inside).toBe(false)
        expect(yield* counted("off_op")).toBe(0)
        // outside a command (a library user's own program) tracing stays on and requests count
        expect(yield* FiberRef.get(FiberRef.currentTracerEnabled)).toBe(true)
        yield* countRequest({ operation: "on_op", method: "GET", status: "200", units: 1 })
        expect(yield* counted("on_op")).toBe(1)
      } finally {
        if (saved !== undefined) process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved
      }
    })
  )
})
