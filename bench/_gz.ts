import * as zlib from "node:zlib"
import { makeWorld } from "../src/sandbox/world/World.js"
const world = makeWorld({ seed: 42, properties: 4000 })
const bodies: string[] = []
for (let p = 0; p < 4000; p += 200) { const r = []; for (let i = p; i < p + 200; i++) r.push(world.sourcingProperty(i)); bodies.push(JSON.stringify({ results: r })) }
console.log("bytes/page", bodies[0]!.length)
for (const level of [1, 3, 6]) {
  const t = performance.now(); let out = 0
  for (const b of bodies) out += zlib.gzipSync(Buffer.from(b), { level }).length
  console.log("level", level, ((performance.now() - t) / bodies.length).toFixed(2), "ms/page", (out / bodies.length / 1024).toFixed(0), "KB")
}
let t = performance.now()
for (const b of bodies) JSON.stringify(JSON.parse(b).results)
console.log("parse+stringify", ((performance.now() - t) / bodies.length).toFixed(2))
const recs = bodies.map((b) => JSON.parse(b).results)
t = performance.now()
for (const r of recs) JSON.stringify(r)
console.log("stringify", ((performance.now() - t) / bodies.length).toFixed(2))
