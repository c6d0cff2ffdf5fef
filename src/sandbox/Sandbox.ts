/**
 * The sandbox server: both hosts on 127.0.0.1, each on its own port (ephemeral by default),
 * sharing one `SandboxContext`. `Sandbox.start` is scoped (closing the scope stops both
 * servers); `startSandbox` is the Promise wrapper for non-Effect callers.
 */
import { HttpMiddleware, HttpRouter, type HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Data, Effect, Exit, Schema, Scope } from "effect"
import * as Http from "node:http"
import { resolveDialect } from "./Dialect.js"
import { tagRoutes, withHost } from "./HostMiddleware.js"
import { makePlatformRouter } from "./platform/PlatformRouter.js"
import { SandboxConfig, type SandboxOptions } from "./SandboxConfig.js"
import { makeSandboxClock, makeSandboxStats, type SandboxContext } from "./SandboxContext.js"
import { makeSandboxControl, type SandboxControl } from "./SandboxControl.js"
import { makeSandboxState } from "./SandboxState.js"
import { makeTokenRouter } from "./token/TokenHost.js"
import { WebhookDeliveryEngine, type WebhookDelivery } from "./webhooks/WebhookDelivery.js"
import { makeWorld, type World } from "./world/World.js"

export class SandboxError extends Data.TaggedError("SandboxError")<{
  readonly reason: "InvalidOptions" | "Bind"
  readonly message: string
  readonly cause?: unknown
}> {}

export interface SandboxHandle {
  /** Base URL of the platform host, e.g. `http://127.0.0.1:8701` (no trailing slash). */
  readonly platformUrl: string
  /** Base URL of the token host. */
  readonly apiUrl: string
  readonly control: SandboxControl
  readonly context: SandboxContext
  /** Delivery of alerts-api events to the configured webhook URL (signed, retried). */
  readonly webhooks: WebhookDelivery
}

const urlOf = (server: HttpServer.HttpServer) => {
  const a = server.address
  return a._tag === "TcpAddress" ? `http://${a.hostname}:${a.port}` : `http://unix:${a.path}`
}

const bind = (host: string, port: number) =>
  NodeHttpServer.make(() => Http.createServer({ keepAliveTimeout: 5_000 }), { host, port }).pipe(
    Effect.mapError((cause) => new SandboxError({ reason: "Bind", message: `Cannot bind ${host}:${port}`, cause }))
  )

/** Parts a caller may supply instead of the built ones (a prepared or custom world). */
export interface SandboxOverrides {
  readonly world?: World
}

/** Sourcing cursors are path segments that carry the whole query: allow long ones. */
const ROUTER_CONFIG = { maxParamLength: 16_384 }

const start = Effect.fn("Sandbox.start")(function* (options: SandboxOptions = {}, overrides: SandboxOverrides = {}) {
  const config = yield* Schema.decodeUnknown(SandboxConfig)(options).pipe(
    Effect.mapError((e) => new SandboxError({ reason: "InvalidOptions", message: e.message, cause: e }))
  )
  const startMs = Date.parse(config.startTime)
  if (Number.isNaN(startMs)) {
    return yield* new SandboxError({ reason: "InvalidOptions", message: `startTime is not a date-time: ${config.startTime}` })
  }
  const platformServer = yield* bind(config.host, config.platformPort)
  const apiServer = yield* bind(config.host, config.apiPort)
  const platformUrl = urlOf(platformServer)
  const apiUrl = urlOf(apiServer)
  const clock = makeSandboxClock(startMs, config.clock)
  const context: SandboxContext = {
    seed: config.seed,
    world: overrides.world ?? makeWorld({ seed: config.seed, ...definedOnly(config.world), now: clock.now }),
    clock,
    stats: makeSandboxStats(),
    platformUrl: () => platformUrl,
    apiUrl: () => apiUrl,
    token: {
      users: config.users,
      accessTokenTtlSeconds: config.accessTokenTtlSeconds,
      refreshTokenTtlSeconds: config.refreshTokenTtlSeconds
    },
    tokenEpoch: { value: 0 },
    driftRate: { platform: 0, token: 0 },
    initialFeeds: config.legacyFeeds,
    dialect: { current: resolveDialect(config.dialect) }
  }
  const state = makeSandboxState(config, context)
  const control = makeSandboxControl(state, startMs)
  const tokenRouter = makeTokenRouter(context)
  const platformApp = withHost("platform", state, { bypass: (p) => p.startsWith("/__sandbox/") })(
    HttpRouter.withRouterConfig(tagRoutes(makePlatformRouter(state, control)), ROUTER_CONFIG)
  )
  const tokenApp = withHost("token", state)(HttpRouter.withRouterConfig(tagRoutes(tokenRouter), ROUTER_CONFIG))
  // No span per request: the sandbox is a test double and paging benchmarks run through it.
  const untraced = HttpMiddleware.withTracerDisabledWhenEffect(() => true)
  yield* untraced(platformServer.serve(platformApp))
  yield* untraced(apiServer.serve(tokenApp))
  const webhooks = yield* WebhookDeliveryEngine.start(context, { pollMs: config.webhookPollMs })
  return { platformUrl, apiUrl, control, context, webhooks } satisfies SandboxHandle
})

const definedOnly = <A extends object>(a: A): A => Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) as A

export const Sandbox = { start } as const

/** Starts a sandbox outside Effect; `close()` stops both servers. */
export const startSandbox = async (
  options: SandboxOptions = {},
  overrides: SandboxOverrides = {}
): Promise<SandboxHandle & { readonly close: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make())
  try {
    const handle = await Effect.runPromise(Scope.extend(start(options, overrides), scope))
    return { ...handle, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
  } catch (e) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw e
  }
}
