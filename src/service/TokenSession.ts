/**
 * The token host's session: logs in with e-mail and password, keeps the tokens in memory
 * (`Redacted`, never printed), and renews them single-flight.
 *
 * Each token set has a generation. A request that met a 401 calls `renew(generation it used)`;
 * under one lock, only the first caller for that generation refreshes (GET /refresh-token with
 * the refresh token as bearer), the others find a newer generation and reuse it. So ten
 * requests hitting an expired token together cause exactly one refresh. A refresh answered
 * 401 (refresh token expired) logs in again.
 *
 * Assumed (docs/ASSUMPTIONS.md): 401 means the token is missing, invalid or expired (renew and
 * replay once); 403 means the operation is outside the subscription (terminal, no renewal).
 */
import { Effect, Option, Redacted, Ref, Schema } from "effect"
import type { HostTransport } from "./HostTransport.js"
import { LoginTokens, RefreshedToken } from "./schema/Auth.js"
import { AuthenticationFailed, type ServiceError, TransportError, UnexpectedShape } from "./ServiceError.js"
import type { ServiceSettingsShape } from "./ServiceSettings.js"

interface Tokens {
  readonly access: Redacted.Redacted<string>
  readonly refresh: Redacted.Redacted<string> | undefined
}

export interface SessionStats {
  readonly logins: number
  readonly refreshes: number
  readonly generation: number
}

export const makeTokenSession = (transport: HostTransport, settings: ServiceSettingsShape) =>
  Effect.gen(function* () {
    const state = yield* Ref.make<{ tokens: Option.Option<Tokens>; generation: number }>({ tokens: Option.none(), generation: 0 })
    const counts = yield* Ref.make({ logins: 0, refreshes: 0 })
    const lock = yield* Effect.makeSemaphore(1)

    // a token answer's body is never shown (it holds the tokens), not even its start
    const decode = <A>(operation: string, schema: Schema.Schema<A, any, never>, text: string) =>
      Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: () => new TransportError({ reason: "InvalidBody", operation, detail: "the token answer is not valid JSON" })
      }).pipe(
        Effect.flatMap((json) =>
          Schema.decodeUnknown(schema)(json).pipe(
            Effect.mapError(
              () =>
                new UnexpectedShape({
                  operation,
                  host: "token",
                  detail: "the token answer is not the documented shape (access_token, refresh_token)",
                  bodyStart: "(not shown: it may hold tokens)"
                })
            )
          )
        )
      )

    const login = Effect.gen(function* () {
      const operation = "login"
      if (Option.isNone(settings.email) || Option.isNone(settings.password)) {
        return yield* new AuthenticationFailed({
          reason: "MissingCredentials",
          host: "token",
          operation,
          detail: "no e-mail and password are configured (SVC_EMAIL, SVC_PASSWORD)"
        })
      }
      yield* Ref.update(counts, (c) => ({ ...c, logins: c.logins + 1 }))
      const res = yield* transport
        .send({
          operation,
          method: "POST",
          url: `${settings.apiUrl}/login`,
          headers: {},
          body: { email: settings.email.value, password: Redacted.value(settings.password.value) }
        })
        .pipe(
          Effect.catchIf(
            (e): e is Extract<ServiceError, { _tag: "AuthenticationFailed" | "TokenProblem" }> =>
              e._tag === "AuthenticationFailed" ||
              (e._tag === "TokenProblem" && (e.status === 400 || e.status === 403 || e.status === 422)),
            (e) =>
              Effect.fail(
                new AuthenticationFailed({
                  reason: "LoginRejected",
                  host: "token",
                  operation,
                  detail: e.detail ?? "the e-mail or password was refused"
                })
              )
          )
        )
      const body = yield* decode(operation, LoginTokens, res.text)
      return { access: Redacted.make(body.access_token), refresh: Redacted.make(body.refresh_token) } satisfies Tokens
    })

    const refresh = (tokens: Tokens) =>
      Effect.gen(function* () {
        if (tokens.refresh === undefined) return yield* login
        yield* Ref.update(counts, (c) => ({ ...c, refreshes: c.refreshes + 1 }))
        const res = yield* transport.send({
          operation: "refresh-token",
          method: "GET",
          url: `${settings.apiUrl}/refresh-token`,
          headers: { authorization: `Bearer ${Redacted.value(tokens.refresh)}` }
        })
        const body = yield* decode("refresh-token", RefreshedToken, res.text)
        return {
          access: Redacted.make(body.access_token),
          refresh: body.refresh_token === undefined ? tokens.refresh : Redacted.make(body.refresh_token)
        } satisfies Tokens
      }).pipe(
        // Spec: a 401 on refresh means log in again.
        Effect.catchIf(
          (e) => e._tag === "AuthenticationFailed",
          () => login
        )
      )

    /** Replaces the tokens of generation `seen` (no-op when another request already did). */
    const renew = (seen: number) =>
      lock.withPermits(1)(
        Effect.gen(function* () {
          const s = yield* Ref.get(state)
          if (s.generation !== seen && Option.isSome(s.tokens)) return
          const tokens = Option.isSome(s.tokens) ? yield* refresh(s.tokens.value) : yield* login
          yield* Ref.set(state, { tokens: Option.some(tokens), generation: s.generation + 1 })
        })
      )

    /** The access token to use now and its generation (logs in first when there is none). */
    const current: Effect.Effect<{ access: Redacted.Redacted<string>; generation: number }, ServiceError> = Effect.gen(function* () {
      const s = yield* Ref.get(state)
      if (Option.isSome(s.tokens)) return { access: s.tokens.value.access, generation: s.generation }
      yield* renew(s.generation)
      const t = yield* Ref.get(state)
      return Option.isSome(t.tokens)
        ? { access: t.tokens.value.access, generation: t.generation }
        : yield* new AuthenticationFailed({ reason: "LoginRejected", host: "token", operation: "login" })
    })

    return {
      current,
      renew,
      /** Forgets the tokens (next request logs in). */
      logout: Ref.update(state, (s) => ({ tokens: Option.none(), generation: s.generation + 1 })),
      stats: Effect.zipWith(Ref.get(counts), Ref.get(state), (c, s): SessionStats => ({ ...c, generation: s.generation }))
    }
  })

export type TokenSession = Effect.Effect.Success<ReturnType<typeof makeTokenSession>>
