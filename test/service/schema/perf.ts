/**
 * Decode throughput of the property record (not a test; run by hand):
 *   npx tsx test/service/schema/perf.ts [n]
 * Reports CPU time (user + system) so a loaded machine still gives comparable figures.
 */
import { Schema } from "effect"
import { makeRecordDecoder } from "../../../src/service/schema/FastDecode.js"
import { Property } from "../../../src/service/schema/index.js"
import { property } from "./fixtures.js"

const n = Number(process.argv[2] ?? 50_000)
const records = Array.from({ length: n }, (_, i) => ({ ...property(i + 1), extra_field: i }))
const cpu = (f: () => void): number => {
  const c = process.cpuUsage()
  f()
  const u = process.cpuUsage(c)
  return (u.user + u.system) / 1000
}
const decode = Schema.decodeUnknownSync(Property)
for (let i = 0; i < Math.min(n, 2000); i++) decode(records[i])
const text = JSON.stringify(records)
let parsed: Array<unknown> = []
const parseMs = cpu(() => {
  parsed = JSON.parse(text)
})
const decodeMs = cpu(() => {
  for (const r of parsed) decode(r)
})
const fast = makeRecordDecoder(Property)
for (let i = 0; i < Math.min(n, 2000); i++) fast(records[i])
const fastMs = cpu(() => {
  for (const r of parsed) fast(r)
})
const perSec = (ms: number) => Math.round((n / ms) * 1000)
console.log(
  `${n} property records (2 listings, 3 locations, histories; ${Math.round(text.length / n)} bytes each): ` +
    `JSON.parse ${perSec(parseMs)}/s, Schema.decodeUnknownSync ${perSec(decodeMs)}/s, ` +
    `makeRecordDecoder ${perSec(fastMs)}/s (CPU time)`
)
