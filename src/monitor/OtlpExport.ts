/**
 * The OTLP/HTTP exporters of `Telemetry.ts` (loaded only when an endpoint is set): traces and
 * metrics through `@effect/opentelemetry` over undici, each export watched so the command can say
 * that the receiver did not take them. The exporter's own requests are never traced.
 */
import { HttpClient } from "@effect/platform"
import { NodeHttpClient } from "@effect/platform-node"
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import { Cause, Effect, Exit, Layer, Redacted } from "effect"
import { FLUSH_MS, type TelemetryConfig } from "./Telemetry.js"

/** What the exports came to: failed ones (with the last reason) and ones cut off by the flush bound. */
export interface ExportWatch {
  failed: number
  pending: number
  last: string
}

/** A failed export in a few words (`Transport ECONNREFUSED`): never its URL, which may carry a user and password. */
const reasonOf = (e: unknown): string => {
  const err = e as { reason?: unknown; _tag?: unknown; cause?: { code?: unknown; cause?: { code?: unknown } } }
  const code = err.cause?.code ?? err.cause?.cause?.code
  return [err.reason ?? err._tag ?? "error", typeof code === "string" ? code : undefined].filter((x) => x !== undefined).join(" ")
}

/** An HTTP client that counts every export's ending in `watch`. */
const watchedClient = (watch: ExportWatch) =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(HttpClient.HttpClient, (client) =>
      HttpClient.transformResponse(client, (response) =>
        Effect.suspend(() => {
          watch.pending += 1
          return Effect.onExit(response, (exit) =>
            Effect.sync(() => {
              // an export the flush bound cut off stays pending
              if (Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) return
              watch.pending -= 1
              if (Exit.isFailure(exit)) {
                watch.failed += 1
                watch.last = reasonOf(Cause.squash(exit.cause))
              } else if (exit.value.status >= 300) {
                watch.failed += 1
                watch.last = `HTTP ${exit.value.status}`
              }
            })
          )
        })
      )
    )
  ).pipe(Layer.provide(NodeHttpClient.layerUndici))

export const otlpLayer = (config: TelemetryConfig, watch: ExportWatch): Layer.Layer<never> => {
  const common = {
    resource: { serviceName: config.serviceName },
    headers: Redacted.value(config.headers),
    shutdownTimeout: FLUSH_MS
  }
  return Layer.mergeAll(
    OtlpTracer.layer({ ...common, url: `${config.endpoint}/v1/traces` }),
    OtlpMetrics.layer({ ...common, url: `${config.endpoint}/v1/metrics` })
  ).pipe(
    Layer.provide(config.protocol === "http/protobuf" ? OtlpSerialization.layerProtobuf : OtlpSerialization.layerJson),
    Layer.provide(watchedClient(watch))
  )
}
