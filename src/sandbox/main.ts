/**
 * `make sandbox`: both hosts on fixed ports (SANDBOX_PLATFORM_PORT, default 8701;
 * SANDBOX_API_PORT, default 8702), printing the base URLs and the well-known credentials,
 * running until interrupted. SANDBOX_DIALECT names a preset of `DIALECTS` (default `default`);
 * SANDBOX_SEED (default 42) and SANDBOX_PROPERTIES (the world's size) make its world. The CLI
 * wires `serveSandbox` in.
 */
import { Config, Console, Effect, Option } from "effect"
import * as Credentials from "./Credentials.js"
import { DIALECT_NAMES } from "../config/Dialect.js"
import { Sandbox } from "./Sandbox.js"
import type { SandboxOptions } from "./SandboxConfig.js"

const ports = Config.all({
  platformPort: Config.integer("SANDBOX_PLATFORM_PORT").pipe(Config.withDefault(8701)),
  apiPort: Config.integer("SANDBOX_API_PORT").pipe(Config.withDefault(8702)),
  dialect: Config.literal(...DIALECT_NAMES)("SANDBOX_DIALECT").pipe(Config.withDefault("default" as const)),
  seed: Config.integer("SANDBOX_SEED").pipe(Config.withDefault(42)),
  properties: Config.integer("SANDBOX_PROPERTIES").pipe(Config.option)
})

/** Serves the sandbox until the fiber is interrupted (Ctrl-C under `NodeRuntime.runMain`). */
export const serveSandbox = Effect.fn("Sandbox.serve")(function* (options: SandboxOptions = {}) {
  const { platformPort, apiPort, dialect, seed, properties } = yield* ports
  const world = Option.match(properties, { onNone: () => ({}), onSome: (n) => ({ properties: n }) })
  const handle = yield* Sandbox.start({ platformPort, apiPort, clock: "wall", dialect, seed, world, ...options })
  yield* Console.log(
    [
      `platform host  ${handle.platformUrl}`,
      `token host     ${handle.apiUrl}`,
      `introspection  ${handle.platformUrl}/__sandbox/stats`,
      `dialect        ${JSON.stringify(handle.control.dialect())}`,
      "",
      "Sandbox credentials (sandbox-only values):",
      `  API key (large balance)      ${Credentials.SANDBOX_API_KEY}`,
      `  API key (low balance)        ${Credentials.LOW_BALANCE_API_KEY}`,
      `  API key (revoked)            ${Credentials.REVOKED_API_KEY}`,
      `  API key (suspended)          ${Credentials.SUSPENDED_API_KEY}`,
      `  API key (not entitled)       ${Credentials.NOT_ENTITLED_API_KEY}`,
      `  OAuth token (no ai:read)     ${Credentials.OAUTH_TOKEN_NO_AI_READ}`,
      `  OAuth token (expired)        ${Credentials.OAUTH_TOKEN_EXPIRED}`,
      `  token host user              ${Credentials.SANDBOX_USER.email} / ${Credentials.SANDBOX_USER.password}`
    ].join("\n")
  )
  return yield* Effect.never
}, Effect.scoped)
