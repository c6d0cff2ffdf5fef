/**
 * The sandbox's webhook delivery: sends the alerts that match each alerts-api feed to the
 * account's webhook URL (`PUT /alerts-api/webhooks`), signed with every active secret of the
 * account (both during a rotation's 24-hour grace, only the new one after an immediate rotation),
 * and retries failed deliveries with exponential backoff.
 *
 * How it finds events: each feed has a watermark on the sandbox clock, starting at the feed's
 * creation. A round reads the alerts created in `[watermark, now)` that match the feed's filter
 * (`toAlertQuery`), queues one message per (feed, alert), and moves the watermark to `now`.
 * Feeds of an account without a URL keep their watermark, so their events go out once a URL is set.
 *
 * Assumed (the spec does not show payload, retries or timing): the body is `{type:
 * "alert.<subtype>", timestamp: <alert created_at>, data: <alert record>}`; the message id is
 * `msg_<feed_id>_<alert_id>` and stays the same on every retry; `webhook-timestamp` is the
 * attempt's time on the transport clock (wall time by default, not the sandbox clock, since the
 * receiver compares it with its own clock); any 2xx, and 409 (the receiver already has the
 * id), counts as delivered; anything else, a timeout or a refused connection is retried after
 * 1 s, 2 s, 4 s, ... (at most 10 min) until `maxAttempts`, then given up.
 * Signing is `shared/WebhookSignature.ts` (the one module with the Standard Webhooks assumption).
 */
import { Effect } from "effect"
import { signedHeaders } from "../../shared/WebhookSignature.js"
import { activeDialect, stringifyWithBigInts, withBigAlertId } from "../Dialect.js"
import type { SandboxContext } from "../SandboxContext.js"
import { toAlertQuery } from "../token/FeedFilter.js"
import { alertsApiFeedStore, webhookSecretStore } from "../token/TokenHost.js"
import type { AlertRecord } from "../world/Records.js"

export interface WebhookDeliveryOptions {
  /** Background poll interval, wall ms; 0 disables the timer (tests call `deliverPending`). Default 1000. */
  readonly pollMs?: number
  /** Deliveries in flight at once. Default 8. */
  readonly concurrency?: number
  /** Attempts per message before it is given up. Default 10. */
  readonly maxAttempts?: number
  /** Delay after failed attempt n (1-based), ms on the transport clock. Default `min(1000 * 2^(n-1), 600000)`. */
  readonly backoffMs?: (attempt: number) => number
  /** Per-attempt timeout, ms. Default 10000. */
  readonly timeoutMs?: number
  /** Transport clock, epoch ms (`webhook-timestamp`, retry times). Default `Date.now`. */
  readonly now?: () => number
}

/** One attempt, as tests and introspection see it. */
export interface DeliveryAttempt {
  readonly id: string
  readonly feedId: string
  readonly alertId: number
  readonly url: string
  /** HTTP status, or 0 for a transport failure or timeout. */
  readonly status: number
  /** Signature entries the attempt carried (one per active secret). */
  readonly signatures: number
  readonly attempt: number
}

export interface DeliveryRound {
  /** Messages queued by this round's scan. */
  readonly queued: number
  readonly attempted: number
  readonly delivered: number
  /** Attempts that failed (their messages stay queued unless given up). */
  readonly failed: number
  readonly gaveUp: number
  /** Messages still queued after the round. */
  readonly pending: number
}

export interface WebhookDelivery {
  /** Scans for new events and sends every due message; `ignoreBackoff` sends retries now. */
  readonly deliverPending: (options?: { readonly ignoreBackoff?: boolean }) => Promise<DeliveryRound>
  /** The last 10,000 attempts, oldest first. */
  readonly attempts: () => ReadonlyArray<DeliveryAttempt>
  /** Messages queued (new or waiting for a retry). */
  readonly pending: () => number
  /** Stops the timer and waits for the round in flight. */
  readonly stop: () => Promise<void>
}

interface Message {
  readonly id: string
  readonly feedId: string
  readonly owner: string
  readonly alertId: number
  readonly body: string
  attempts: number
  nextAt: number
}

const PAGE = 500
const LOG_LIMIT = 10_000

export const defaultBackoffMs = (attempt: number) => Math.min(1000 * 2 ** (attempt - 1), 600_000)

/** Dialect `bigIds`: `data.alert_id` is the exact integer `alert_id + 2^53` (the message id keeps the world's id). */
const eventBody = (a: AlertRecord, bigIds: boolean) =>
  bigIds
    ? stringifyWithBigInts({ type: `alert.${a.alert_subtype}`, timestamp: a.created_at, data: withBigAlertId(a) })
    : JSON.stringify({ type: `alert.${a.alert_subtype}`, timestamp: a.created_at, data: a })

/** The timer of the engine that polls for each sandbox (at most one polls). */
const pollers = new WeakMap<SandboxContext, () => void>()

/**
 * Starts delivering for one sandbox. The timer (if any) is unref'd: it never keeps the process
 * up. At most one engine per sandbox polls: starting another stops the earlier one's timer, so a
 * test can take delivery over with `pollMs: 0` and `deliverPending()` beside the sandbox's own.
 */
export const startWebhookDelivery = (ctx: SandboxContext, options: WebhookDeliveryOptions = {}): WebhookDelivery => {
  const feeds = alertsApiFeedStore(ctx)
  const hooks = webhookSecretStore(ctx)
  const now = options.now ?? Date.now
  const backoff = options.backoffMs ?? defaultBackoffMs
  const maxAttempts = options.maxAttempts ?? 10
  const concurrency = Math.max(1, options.concurrency ?? 8)
  const timeoutMs = options.timeoutMs ?? 10_000
  const watermarks = new Map<string, number>()
  const queue = new Map<string, Message>()
  const log: Array<DeliveryAttempt> = []

  const scan = () => {
    let queued = 0
    const sandboxNow = ctx.clock.now()
    const live = new Set<string>()
    const bigIds = activeDialect(ctx).bigIds === true
    for (const feed of feeds.all()) {
      live.add(feed.feed_id)
      if (hooks.url(feed.owner) === undefined) continue
      const from = watermarks.get(feed.feed_id) ?? feed.createdAtMs
      if (from >= sandboxNow) continue
      const base = toAlertQuery(feed.filter, sandboxNow, { limit: PAGE, offset: 0 }, "alert_id")
      const createdFrom = Math.max(base.createdFrom ?? from, from)
      const createdTo = Math.min(base.createdTo ?? sandboxNow, sandboxNow)
      for (let offset = 0; createdFrom < createdTo; offset += PAGE) {
        const page = ctx.world.alerts({ ...base, createdFrom, createdTo, offset, limit: PAGE })
        for (const a of page.results) {
          const id = `msg_${feed.feed_id}_${a.alert_id}`
          if (queue.has(id)) continue
          queue.set(id, {
            id,
            feedId: feed.feed_id,
            owner: feed.owner,
            alertId: a.alert_id,
            body: eventBody(a, bigIds),
            attempts: 0,
            nextAt: 0
          })
          queued += 1
        }
        if (page.results.length < PAGE) break
      }
      watermarks.set(feed.feed_id, sandboxNow)
    }
    // A deleted feed is removed permanently (spec): its undelivered messages go with it.
    for (const [id, m] of queue) if (!live.has(m.feedId)) queue.delete(id)
    return queued
  }

  /** One attempt; true when delivered. */
  const send = async (m: Message): Promise<boolean> => {
    const url = hooks.url(m.owner)
    if (url === undefined) return false
    const secrets = hooks.activeSecrets(m.owner)
    const headers = signedHeaders(secrets, m.id, Math.floor(now() / 1000), m.body)
    let status = 0
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { ...headers, "content-type": "application/json", "user-agent": "sandbox-webhooks/1" },
        body: m.body,
        signal: AbortSignal.timeout(timeoutMs)
      })
      status = res.status
      await res.arrayBuffer().catch(() => undefined)
    } catch {
      status = 0
    }
    m.attempts += 1
    log.push({ id: m.id, feedId: m.feedId, alertId: m.alertId, url, status, signatures: secrets.length, attempt: m.attempts })
    if (log.length > LOG_LIMIT) log.splice(0, log.length - LOG_LIMIT)
    return (status >= 200 && status < 300) || status === 409
  }

  const round = async (ignoreBackoff: boolean): Promise<DeliveryRound> => {
    const queued = scan()
    const t = now()
    const due = [...queue.values()].filter((m) => ignoreBackoff || m.nextAt <= t)
    let delivered = 0,
      failed = 0,
      gaveUp = 0,
      next = 0
    const worker = async () => {
      while (next < due.length) {
        const m = due[next++]!
        if (await send(m)) {
          delivered += 1
          queue.delete(m.id)
          continue
        }
        failed += 1
        if (m.attempts >= maxAttempts) {
          gaveUp += 1
          queue.delete(m.id)
        } else m.nextAt = now() + backoff(m.attempts)
      }
    }
    await Promise.all(Array.from({ length: Math.min(concurrency, due.length) }, worker))
    return { queued, attempted: due.length, delivered, failed, gaveUp, pending: queue.size }
  }

  // Rounds run one at a time, in call order.
  let chain: Promise<unknown> = Promise.resolve()
  let waiting = 0
  const deliverPending = (o: { readonly ignoreBackoff?: boolean } = {}) => {
    waiting += 1
    const r = chain
      .then(() => round(o.ignoreBackoff ?? false))
      .finally(() => {
        waiting -= 1
      })
    chain = r.catch(() => undefined)
    return r
  }
  const pollMs = options.pollMs ?? 1000
  const timer =
    pollMs > 0
      ? setInterval(() => {
          if (waiting === 0) void deliverPending().catch(() => undefined)
        }, pollMs)
      : undefined
  timer?.unref()
  const stopTimer = () => {
    if (timer) clearInterval(timer)
  }
  pollers.get(ctx)?.()
  pollers.set(ctx, stopTimer)

  return {
    deliverPending,
    attempts: () => log,
    pending: () => queue.size,
    stop: async () => {
      stopTimer()
      if (pollers.get(ctx) === stopTimer) pollers.delete(ctx)
      await chain
    }
  }
}

/** The delivery engine for a scope (for `Sandbox.start`): stopped when the scope closes. */
export const WebhookDeliveryEngine = {
  start: (ctx: SandboxContext, options: WebhookDeliveryOptions = {}) =>
    Effect.acquireRelease(
      Effect.sync(() => startWebhookDelivery(ctx, options)),
      (d) => Effect.promise(() => d.stop())
    )
} as const
