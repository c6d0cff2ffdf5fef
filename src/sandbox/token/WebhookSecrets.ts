/**
 * Webhook state of the token host, per account: the delivery URL (`PUT /alerts-api/webhooks`) and
 * the signing secrets (`POST /alerts-api/webhooks/rotate-secret`). Exported so the webhook
 * delivery can read which secrets sign a delivery (`activeSecrets`) and where to send it (`url`).
 *
 * Spec: after a rotation with `immediate: false` the earlier secrets stay valid for 24 hours,
 * and while the grace window is open a delivery carries one signature per active secret; with
 * `immediate: true` every earlier secret is revoked at once.
 */
import { createHash } from "node:crypto"
import type { SandboxContext } from "../SandboxContext.js"

/** Spec: the rotation grace window. */
export const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000

export interface WebhookSecret {
  /** `whsec_<base64 of 32 bytes>` (Standard Webhooks). */
  readonly secret: string
  readonly createdAt: number
  /** When it stops signing; `undefined` while it is the current secret. */
  readonly expiresAt: number | undefined
}

interface Account {
  url: string | undefined
  secrets: Array<WebhookSecret>
  rotations: number
}

export interface WebhookSecretStore {
  /** The delivery URL of an account, if set. */
  readonly url: (account: string) => string | undefined
  readonly setUrl: (account: string, url: string) => void
  /** Issues a new current secret and returns it. */
  readonly rotate: (account: string, immediate: boolean) => string
  /** Secrets that sign a delivery now, current first. */
  readonly activeSecrets: (account: string) => ReadonlyArray<string>
  /** Accounts with a delivery URL. */
  readonly accounts: () => ReadonlyArray<string>
}

/**
 * Assumed: every account starts with one current secret (derived from the seed and the account,
 * so it is stable per sandbox seed) before any rotation; secrets are derived the same way with
 * the rotation number, so a sandbox replays identically.
 */
export const makeWebhookSecretStore = (ctx: Pick<SandboxContext, "seed" | "clock">): WebhookSecretStore => {
  const accounts = new Map<string, Account>()
  const derive = (account: string, n: number) =>
    `whsec_${createHash("sha256").update(`webhook:${ctx.seed}:${account}:${n}`).digest("base64")}`
  const get = (account: string): Account => {
    let a = accounts.get(account)
    if (a === undefined) {
      a = { url: undefined, secrets: [{ secret: derive(account, 0), createdAt: ctx.clock.now(), expiresAt: undefined }], rotations: 0 }
      accounts.set(account, a)
    }
    return a
  }
  return {
    url: (account) => accounts.get(account)?.url,
    setUrl: (account, url) => {
      get(account).url = url
    },
    rotate: (account, immediate) => {
      const a = get(account)
      const now = ctx.clock.now()
      a.rotations += 1
      const fresh: WebhookSecret = { secret: derive(account, a.rotations), createdAt: now, expiresAt: undefined }
      const earlier = immediate
        ? []
        : a.secrets
            .filter((s) => s.expiresAt === undefined || s.expiresAt > now)
            .map((s) => ({ ...s, expiresAt: s.expiresAt ?? now + ROTATION_GRACE_MS }))
      a.secrets = [fresh, ...earlier]
      return fresh.secret
    },
    activeSecrets: (account) => {
      const now = ctx.clock.now()
      return get(account)
        .secrets.filter((s) => s.expiresAt === undefined || s.expiresAt > now)
        .map((s) => s.secret)
    },
    accounts: () => [...accounts.entries()].filter(([, a]) => a.url !== undefined).map(([k]) => k)
  }
}

const stores = new WeakMap<object, WebhookSecretStore>()

/** The webhook store of one sandbox instance (one per `SandboxContext`). */
export const webhookSecretStore = (ctx: SandboxContext): WebhookSecretStore => {
  let s = stores.get(ctx)
  if (s === undefined) {
    s = makeWebhookSecretStore(ctx)
    stores.set(ctx, s)
  }
  return s
}
