/**
 * Test helper: the token host's router alone (no rate limits, no faults) on 127.0.0.1, port 0,
 * over real HTTP, with a fixed sandbox clock the tests advance, and a tiny JSON client.
 */
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Exit, Scope } from "effect"
import * as Http from "node:http"
import { SANDBOX_USER } from "../../../src/sandbox/Credentials.js"
import { type SandboxContext, makeSandboxClock, makeSandboxStats } from "../../../src/sandbox/SandboxContext.js"
import { RESTRICTED_USER, makeTokenRouter } from "../../../src/sandbox/token/TokenHost.js"
import { makeWorld } from "../../../src/sandbox/world/World.js"

export const START = Date.parse("2026-11-01T00:00:00Z")

export interface TokenHostFixture {
  readonly url: string
  readonly ctx: SandboxContext
  readonly close: () => Promise<void>
  /** A JSON call; `token` goes in `Authorization: Bearer`. */
  readonly call: (
    method: string,
    path: string,
    opts?: { readonly token?: string | undefined; readonly body?: unknown; readonly rawBody?: string }
  ) => Promise<{ status: number; body: any }>
  /** Logs in as `user` and returns its tokens. */
  readonly login: (user?: { email: string; password: string }) => Promise<{ access_token: string; refresh_token: string }>
}

export const startTokenHost = async (options: { seed?: number; properties?: number } = {}): Promise<TokenHostFixture> => {
  const scope = Effect.runSync(Scope.make())
  const clock = makeSandboxClock(START, "fixed")
  let url = ""
  const seed = options.seed ?? 42
  const ctx: SandboxContext = {
    seed,
    world: makeWorld({ seed, properties: options.properties ?? 2_000, now: clock.now }),
    clock,
    stats: makeSandboxStats(),
    platformUrl: () => "http://platform.invalid",
    apiUrl: () => url,
    token: { users: [SANDBOX_USER, RESTRICTED_USER], accessTokenTtlSeconds: 900, refreshTokenTtlSeconds: 86_400 },
    tokenEpoch: { value: 0 },
    driftRate: { platform: 0, token: 0 }
  }
  const server = await Effect.runPromise(
    Scope.extend(
      NodeHttpServer.make(() => Http.createServer(), { host: "127.0.0.1", port: 0 }),
      scope
    )
  )
  const address = server.address
  url = address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  await Effect.runPromise(Scope.extend(server.serve(makeTokenRouter(ctx)), scope))

  const call: TokenHostFixture["call"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = {}
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`
    let body: string | undefined
    if (opts.rawBody !== undefined) body = opts.rawBody
    else if (opts.body !== undefined) body = JSON.stringify(opts.body)
    if (body !== undefined) headers["content-type"] = "application/json"
    const res = await fetch(path.startsWith("http") ? path : `${url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) })
    const text = await res.text()
    return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
  }
  const login: TokenHostFixture["login"] = async (user = SANDBOX_USER) => {
    const r = await call("POST", "/login", { body: user })
    if (r.status !== 200) throw new Error(`login failed: ${r.status} ${JSON.stringify(r.body)}`)
    return r.body
  }
  return { url, ctx, call, login, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** Asserts a 422 body's shape and returns its items. */
export const issuesOf = (body: any): Array<{ loc: Array<string | number>; msg: string; type: string; input: unknown; ctx: object }> => {
  if (!Array.isArray(body?.detail)) throw new Error(`not a 422 body: ${JSON.stringify(body)}`)
  for (const i of body.detail) {
    if (!Array.isArray(i.loc) || typeof i.msg !== "string" || typeof i.type !== "string" || !("input" in i) || typeof i.ctx !== "object") {
      throw new Error(`bad 422 item: ${JSON.stringify(i)}`)
    }
  }
  return body.detail
}

/** Whether some 422 item sits at `loc` (joined with dots) with `type`. */
export const hasIssue = (body: any, loc: string, type?: string) =>
  issuesOf(body).some((i) => i.loc.join(".") === loc && (type === undefined || i.type === type))
