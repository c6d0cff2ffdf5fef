/**
 * Fault injection "records whose fields drift from the spec": per record id, deterministically,
 * a copy with one top-level field of the wrong type (a number sent as a string) or one field
 * renamed (snake_case to camelCase, or a `_v2` suffix).
 */
import { hash3, hashString } from "./Hash.js"

const idOf = (record: object): string | number => {
  const r = record as Record<string, unknown>
  for (const k of ["id", "alert_id", "property_id", "listing_id", "agency_id", "agent_id", "location_id", "name"]) {
    const v = r[k]
    if (typeof v === "string" || typeof v === "number") return v
  }
  return JSON.stringify(record)
}

export const makeDrift = (seed: number) => {
  const h = (kind: string, id: string | number, salt: number) =>
    hash3(seed ^ hashString(kind), typeof id === "number" ? id : hashString(id), salt)
  const isDrifted = (kind: string, id: string | number, rate: number) => rate > 0 && h(kind, id, 0xd1) / 4294967296 < rate
  const drift = <A extends object>(record: A, kind: string, rate: number): A => {
    const id = idOf(record)
    if (!isDrifted(kind, id, rate)) return record
    const entries = Object.entries(record as Record<string, unknown>)
    if (entries.length === 0) return record
    const numeric = entries.filter(([, v]) => typeof v === "number")
    const pick = h(kind, id, 0xd2)
    const out: Record<string, unknown> = {}
    if (numeric.length > 0 && pick % 2 === 0) {
      const [key] = numeric[(pick >>> 1) % numeric.length]!
      for (const [k, v] of entries) out[k] = k === key ? String(v) : v
    } else {
      const [key] = entries[(pick >>> 1) % entries.length]!
      const renamed = key.includes("_") ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : `${key}_v2`
      for (const [k, v] of entries) out[k === key ? renamed : k] = v
    }
    return out as A
  }
  return { isDrifted, drift }
}
