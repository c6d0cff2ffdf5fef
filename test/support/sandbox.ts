/**
 * Shared sandbox fixtures for every test: each test gets its own sandbox on ephemeral ports
 * of 127.0.0.1.
 *
 * - `withSandbox(options)`: scoped Effect for `it.scoped` / `it.live` (stops with the scope).
 * - `SandboxTest.layer(options)`: the handle as a service, for `it.layer` / `layer(...)`.
 * - `startTestSandbox(options)`: plain async; call `close()` in `afterEach`/`afterAll`.
 * - `call(handle, ...)`: a small fetch helper returning status, headers and parsed JSON.
 *
 * Test defaults differ from the server's in one way: rate limits are off (quota 0) unless the
 * options set them, so a test's burst of requests is not answered 429 by accident.
 */
import { Context, Effect, Layer } from "effect"
import { SANDBOX_API_KEY } from "../../src/sandbox/Credentials.js"
import { Sandbox, type SandboxHandle, startSandbox } from "../../src/sandbox/Sandbox.js"
import type { SandboxOptions } from "../../src/sandbox/SandboxConfig.js"

export type { SandboxHandle }

/** Options with the test defaults applied (rate limits off unless given). */
export const testOptions = (options: SandboxOptions = {}): SandboxOptions => ({
  ...options,
  rateLimit: {
    platform: options.rateLimit?.platform ?? { quota: 0, windowSeconds: 1 },
    token: options.rateLimit?.token ?? { quota: 0, windowSeconds: 1 }
  }
})

export const withSandbox = (options: SandboxOptions = {}) => Sandbox.start(testOptions(options))

export class SandboxTest extends Context.Tag("test/SandboxTest")<SandboxTest, SandboxHandle>() {
  static layer = (options: SandboxOptions = {}) => Layer.scoped(SandboxTest, withSandbox(options))
}

export const startTestSandbox = (options: SandboxOptions = {}) => startSandbox(testOptions(options))

export interface CallResult {
  readonly status: number
  readonly headers: Headers
  /** Parsed JSON, or the raw text when the body is not JSON (undefined when empty). */
  readonly body: any
}

export interface CallInit {
  readonly method?: string
  readonly body?: unknown
  /** Credential sent as `Authorization: Bearer`; `null` sends none. Default: `SANDBOX_API_KEY`. */
  readonly key?: string | null
  readonly headers?: Record<string, string>
  readonly signal?: AbortSignal
}

/** Fetches `base + path` (or an absolute URL) and reads the whole body. */
export const call = async (base: string, path: string, init: CallInit = {}): Promise<CallResult> => {
  const headers: Record<string, string> = { ...init.headers }
  const key = init.key === undefined ? SANDBOX_API_KEY : init.key
  if (key !== null) headers["authorization"] = `Bearer ${key}`
  if (init.body !== undefined) headers["content-type"] = "application/json"
  const res = await fetch(path.startsWith("http") ? path : `${base}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers,
    ...(init.body !== undefined ? { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) } : {}),
    ...(init.signal ? { signal: init.signal } : {})
  })
  const text = await res.text()
  let body: unknown = undefined
  if (text !== "") {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  return { status: res.status, headers: res.headers, body }
}

/** `call` as an Effect (for `it.scoped` tests). */
export const callEffect = (base: string, path: string, init: CallInit = {}) => Effect.promise(() => call(base, path, init))

/** Units the sandbox has charged so far, every key and operation (its own billing counter). */
export const totalUnits = (s: SandboxHandle): number => Object.values(s.control.stats().unitsSpent).reduce((a, b) => a + b, 0)

/** Requests the sandbox has answered so far, both hosts (`/__sandbox/` excluded). */
export const totalRequests = (s: SandboxHandle): number => Object.values(s.control.stats().requests).reduce((a, b) => a + b, 0)
