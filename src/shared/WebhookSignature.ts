/**
 * Signing and verification of webhook deliveries: the one module that knows the scheme.
 *
 * Assumed (the spec does not show the payload, the header names nor the algorithm; see
 * docs/ASSUMPTIONS.md "Events (webhooks)"): Standard Webhooks 1.0.
 * - headers `webhook-id` (the delivery id, the same on every retry), `webhook-timestamp` (Unix
 *   seconds of the attempt) and `webhook-signature`;
 * - the signature header is a space-separated list of `v1,<base64 HMAC-SHA256>` entries, one per
 *   active signing secret, each over the bytes `"<id>.<timestamp>.<body>"`;
 * - a secret is `whsec_<base64 key>`; the HMAC key is the decoded base64 (as in the reference
 *   libraries, a secret pasted without its prefix is decoded the same way);
 * - a delivery is accepted when any entry matches any secret the receiver holds (constant-time
 *   comparison), and refused when its timestamp is more than 5 minutes older or newer than the
 *   receiver's clock.
 * The sandbox's delivery engine signs with `signatureHeader`; the receiver checks the headers with
 * `checkHeaders` before it reads the body, then the body with `matchesBody` (`verify` is both).
 */
import { Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

export const HEADER_ID = "webhook-id"
export const HEADER_TIMESTAMP = "webhook-timestamp"
export const HEADER_SIGNATURE = "webhook-signature"

/** Assumed: the Standard Webhooks reference tolerance, 5 minutes each way. */
export const TOLERANCE_SECONDS = 5 * 60

const PREFIX = "whsec_"

const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, "base64")

const mac = (secret: string, id: string, timestamp: number | string, body: string | Uint8Array): Buffer =>
  createHmac("sha256", keyOf(secret)).update(`${id}.${timestamp}.`).update(body).digest()

/** One `v1,<base64>` signature entry. */
export const sign = (secret: string, id: string, timestamp: number, body: string | Uint8Array): string =>
  `v1,${mac(secret, id, timestamp, body).toString("base64")}`

/** The `webhook-signature` value: one entry per secret, space-separated. */
export const signatureHeader = (secrets: ReadonlyArray<string>, id: string, timestamp: number, body: string | Uint8Array): string =>
  secrets.map((s) => sign(s, id, timestamp, body)).join(" ")

/** The three headers of a delivery signed with every given secret. */
export const signedHeaders = (
  secrets: ReadonlyArray<string>,
  id: string,
  timestamp: number,
  body: string | Uint8Array
): Record<string, string> => ({
  [HEADER_ID]: id,
  [HEADER_TIMESTAMP]: String(timestamp),
  [HEADER_SIGNATURE]: signatureHeader(secrets, id, timestamp, body)
})

/** Why a delivery was refused. */
export type VerifyFailure =
  | "MissingHeaders" // no id, timestamp or signature
  | "BadTimestamp" // not an integer number of seconds
  | "Stale" // older than the tolerance
  | "Future" // newer than the tolerance
  | "Forged" // no entry matches any secret

export type Verification =
  { readonly ok: true; readonly id: string; readonly timestamp: number } | { readonly ok: false; readonly reason: VerifyFailure }

/** What the headers alone show: checked before a byte of the body is read. */
export interface DeliveryHeaders {
  readonly id: string
  /** The header text (signed as is). */
  readonly ts: string
  readonly timestamp: number
  /** The well-formed `v1` entries, decoded (32 bytes each). */
  readonly offered: ReadonlyArray<Buffer>
}

export type HeaderCheck = { readonly ok: true; readonly headers: DeliveryHeaders } | { readonly ok: false; readonly reason: VerifyFailure }

export interface HeaderInput {
  /** Header lookup (case-insensitive names are the caller's business; Node lower-cases them). */
  readonly header: (name: string) => string | undefined
  /** The receiver's clock, Unix seconds. */
  readonly nowSeconds: number
  readonly toleranceSeconds?: number
}

/**
 * The checks that need no body: the three headers present, the timestamp an integer within the
 * tolerance, and at least one well-formed `v1` entry (none: `Forged`, nothing could match).
 */
export const checkHeaders = (input: HeaderInput): HeaderCheck => {
  const id = input.header(HEADER_ID)
  const ts = input.header(HEADER_TIMESTAMP)
  const sig = input.header(HEADER_SIGNATURE)
  if (!id || !ts || !sig) return { ok: false, reason: "MissingHeaders" }
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, reason: "BadTimestamp" }
  const timestamp = Number(ts)
  const tolerance = input.toleranceSeconds ?? TOLERANCE_SECONDS
  if (timestamp < input.nowSeconds - tolerance) return { ok: false, reason: "Stale" }
  if (timestamp > input.nowSeconds + tolerance) return { ok: false, reason: "Future" }
  const offered = sig.split(" ").flatMap((entry) => {
    const comma = entry.indexOf(",")
    if (comma < 0 || entry.slice(0, comma) !== "v1") return []
    const raw = Buffer.from(entry.slice(comma + 1), "base64")
    return raw.length === 32 ? [raw] : []
  })
  if (offered.length === 0) return { ok: false, reason: "Forged" }
  return { ok: true, headers: { id, ts, timestamp, offered } }
}

/** Whether any offered entry is the HMAC of the body under any secret (constant-time, no early exit). */
export const matchesBody = (headers: DeliveryHeaders, body: Uint8Array, secrets: ReadonlyArray<Redacted.Redacted<string>>): boolean => {
  let matched = false
  for (const secret of secrets) {
    const expected = mac(Redacted.value(secret), headers.id, headers.ts, body)
    for (const o of headers.offered) if (timingSafeEqual(expected, o)) matched = true
  }
  return matched
}

export interface VerifyInput extends HeaderInput {
  readonly body: Uint8Array
  readonly secrets: ReadonlyArray<Redacted.Redacted<string>>
}

/** Checks a delivery's headers and body against the receiver's secrets. Never throws. */
export const verify = (input: VerifyInput): Verification => {
  const h = checkHeaders(input)
  if (!h.ok) return h
  return matchesBody(h.headers, input.body, input.secrets)
    ? { ok: true, id: h.headers.id, timestamp: h.headers.timestamp }
    : { ok: false, reason: "Forged" }
}

/** Secrets from one configuration value: whitespace- or comma-separated (old and new during a rotation). */
export const parseSecrets = (value: Redacted.Redacted<string>): ReadonlyArray<Redacted.Redacted<string>> =>
  Redacted.value(value)
    .split(/[\s,]+/)
    .filter((s) => s.length > 0)
    .map((s) => Redacted.make(s))
