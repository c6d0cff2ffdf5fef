/**
 * The request metrics every host request records (exported over OTLP when telemetry is on;
 * otherwise they stay in the process): requests by operation, method and status, and units
 * charged by operation. Imports nothing of the project, so the service clients can use it.
 */
import { Effect, FiberRef, Metric } from "effect"

/** Requests (each with its retries) by `operation`, `method` and `status` (HTTP status, or what failed: `Network`, `Timeout`...). */
export const requestsTotal = Metric.counter("estate_etl_requests_total", {
  description: "Host requests by operation, method and final status (retries included in one request)",
  incremental: true
})

/** Units the service charged, by `operation`. */
export const requestUnitsTotal = Metric.counter("estate_etl_request_units_total", {
  description: "Units charged by the service, by operation",
  incremental: true
})

/** Records one finished request (not when tracing is off: no telemetry, `Telemetry.withTelemetry`). */
export const countRequest = (r: {
  readonly operation: string
  readonly method: string
  readonly status: string
  readonly units: number
}): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (on) =>
    on
      ? Effect.zipRight(
          Metric.increment(
            Metric.tagged(Metric.tagged(Metric.tagged(requestsTotal, "operation", r.operation), "method", r.method), "status", r.status)
          ),
          r.units > 0 ? Metric.incrementBy(Metric.tagged(requestUnitsTotal, "operation", r.operation), r.units) : Effect.void
        )
      : Effect.void
  )
