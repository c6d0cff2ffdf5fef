import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type JournalEntry, makePageJournal, SEGMENT_PAGES } from "../../src/load/PageJournal.js"

const entry = (seq: number): JournalEntry => ({
  seq,
  page: {
    slice: "ES",
    seq: seq - 1,
    fetched: {
      records: [{ id: `p${seq}`, price: seq * 1000 }],
      raw: "", // the journal keeps the body as `body`; a replayed page has no text of its own
      units: 1,
      charges: [{ requestId: `req-${seq}`, operation: "sourcing_next", units: 1, at: "2026-11-21T00:00:00.000Z" }]
    },
    checkpoint: { key: "ES", value: { next: `c${seq}` }, done: false },
    attempts: { requests: 1, retries: 0, throttled: 0 },
    fresh: 1
  },
  body: `{"results":[{"id":"p${seq}"}]}`
})

/** A page whose records are the list in its body: journaled as the body's bytes, records re-read on replay. */
const framed = (seq: number): JournalEntry => {
  const records = [{ id: `p${seq}`, text: 'a line\nbreak, quotes " and ünïcode', n: seq }]
  const e = entry(seq)
  return {
    ...e,
    page: { ...e.page, fetched: { ...e.page.fetched, records, recordsAt: "results" } },
    body: JSON.stringify({ count: 9, results: records }, null, 2)
  }
}

const dirs: Array<string> = []
const tempRoot = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "estate-journal-"))
  dirs.push(d)
  return path.join(d, "warehouse.duckdb.journal")
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe("page journal", () => {
  it("gives back the pages after the warehouse's count, in order, as they were written", () => {
    const journal = makePageJournal(tempRoot())
    const w = journal.open("sourcing-search", "run-1")
    for (let seq = 1; seq <= 5; seq++) w.append(entry(seq))
    w.close()
    expect(journal.pending("sourcing-search", "run-1", 0)).toEqual([1, 2, 3, 4, 5].map(entry))
    expect(journal.pending("sourcing-search", "run-1", 3).map((e) => e.seq)).toEqual([4, 5])
    expect(journal.pending("sourcing-search", "run-1", 5)).toEqual([])
    expect(journal.pending("sourcing-search", "other-run", 0)).toEqual([])
  })

  it("ignores a line a kill cut short, and stops at a gap (only an unbroken run of pages can land)", () => {
    const root = tempRoot()
    const journal = makePageJournal(root)
    const w = journal.open("p", "r")
    for (const seq of [1, 2, 4]) w.append(entry(seq))
    w.close()
    const file = path.join(root, "p", "r", "000000.ndjson")
    fs.appendFileSync(file, JSON.stringify(entry(5)).slice(0, 40)) // the write a SIGKILL interrupted
    expect(journal.pending("p", "r", 0).map((e) => e.seq)).toEqual([1, 2])
  })

  it("deletes segments once their pages are committed, and the run's folder when it ends", () => {
    const root = tempRoot()
    const journal = makePageJournal(root)
    const w = journal.open("p", "r")
    const pages = SEGMENT_PAGES * 2 + 3
    for (let seq = 1; seq <= pages; seq++) w.append(entry(seq))
    const runDir = path.join(root, "p", "r")
    expect(fs.readdirSync(runDir)).toEqual(["000000.ndjson", "000001.ndjson", "000002.ndjson"])
    w.committed(SEGMENT_PAGES - 1) // the first segment still holds an uncommitted page
    expect(fs.readdirSync(runDir)).toHaveLength(3)
    w.committed(SEGMENT_PAGES + 1)
    expect(fs.readdirSync(runDir)).toEqual(["000001.ndjson", "000002.ndjson"])
    expect(journal.pending("p", "r", SEGMENT_PAGES + 1).map((e) => e.seq)[0]).toBe(SEGMENT_PAGES + 2)
    w.finish()
    expect(fs.existsSync(runDir)).toBe(false)
    expect(fs.existsSync(root)).toBe(false) // nothing else was journaled: no empty folders left
    expect(journal.pending("p", "r", 0)).toEqual([])
  })

  it("refuses ids that would leave its folder, and discard forgets a pipeline's runs", () => {
    const root = tempRoot()
    const journal = makePageJournal(root)
    expect(() => journal.open("p", "../escape").append(entry(1))).toThrow(/folder name/)
    const w = journal.open("p", "r")
    w.append(entry(1))
    w.close()
    journal.discard("p")
    expect(fs.existsSync(path.join(root, "p"))).toBe(false)
  })

  it("journals a page whose records are in its body as the body's bytes, and reads both back", () => {
    const root = tempRoot()
    const journal = makePageJournal(root)
    const w = journal.open("p", "r")
    for (const seq of [1, 2, 3]) w.append(seq === 2 ? entry(seq) : framed(seq)) // frames of both kinds in one segment
    w.close()
    expect(journal.pending("p", "r", 0)).toEqual([framed(1), entry(2), framed(3)])
    const text = fs.readFileSync(path.join(root, "p", "r", "000000.ndjson"), "utf8")
    expect(text).toContain(framed(1).body) // the body as received, not escaped inside JSON
    expect(text.split(`"id": "p1"`)).toHaveLength(2) // and only once
  })

  it("takes a body given as its UTF-8 bytes (what the runner keeps) and gives it back as the same text", () => {
    const root = tempRoot()
    const journal = makePageJournal(root)
    const w = journal.open("p", "r")
    const asBytes = (e: JournalEntry): JournalEntry => ({ ...e, body: Buffer.from(e.body as string, "utf8") })
    for (const seq of [1, 2, 3]) w.append(asBytes(seq === 2 ? entry(seq) : framed(seq))) // both kinds of frame
    w.close()
    expect(journal.pending("p", "r", 0)).toEqual([framed(1), entry(2), framed(3)])
  })

  it("ignores a frame whose body a kill cut short; the resumed run's next page is read after it", () => {
    const root = tempRoot()
    const journal = makePageJournal(root)
    const w = journal.open("p", "r")
    for (const seq of [1, 2]) w.append(framed(seq))
    w.close()
    const file = path.join(root, "p", "r", "000000.ndjson")
    const whole = fs.statSync(file).size
    w.append(framed(3))
    w.close()
    fs.truncateSync(file, whole + 60) // the write a SIGKILL interrupted: header and part of the body
    expect(journal.pending("p", "r", 0).map((e) => e.seq)).toEqual([1, 2])
    const resumed = journal.open("p", "r")
    resumed.append(framed(3)) // the resume paid page 3 again and journals it after the whole frames
    resumed.close()
    expect(journal.pending("p", "r", 0)).toEqual([1, 2, 3].map(framed))
  })

  it("replays frames a killed run of the previous toolkit wrote, whose fields are the page's copied flat", () => {
    const root = tempRoot()
    const dir = path.join(root, "p", "r")
    fs.mkdirSync(dir, { recursive: true })
    const request = (n: number) => ({ key: `k${n}`, operation: "sourcing_next", boughtAt: `2026-11-21T00:00:0${n - 1}.000Z`, units: 1 })
    // written by the toolkit before the one page record (issue 31): a whole-JSON frame, a head
    // followed by the body its records are re-read from, and a frame of an older toolkit still
    // (no keys counted, no timing, no 429s)
    const old = [
      `{"seq":1,"slice":"ES","sliceSeq":0,"records":[{"id":"p1","n":1}],"checkpoint":{"key":"ES","value":{"next":"c1"},"done":false},"ledger":[{"requestId":"req-1","operation":"sourcing_next","units":1,"at":"2026-11-21T00:00:00.000Z"}],"units":1,"requests":2,"retries":1,"throttled":1,"raw":{"pageKey":"0","body":"{\\"results\\":[{\\"id\\":\\"p1\\",\\"n\\":1}]}","request":{"key":"k1","operation":"sourcing_next","boughtAt":"2026-11-21T00:00:00.000Z","units":1}},"timing":{"startedAt":"2026-11-21T00:00:00.000Z","ms":12.5},"operation":"sourcing_next","fresh":1,"freshKeys":[123456789],"declared":9}`,
      `{"seq":2,"slice":"ES","sliceSeq":1,"checkpoint":{"key":"ES","value":{"next":"c2"},"done":true},"ledger":[{"requestId":"req-2","operation":"sourcing_next","units":1,"at":"2026-11-21T00:00:01.000Z"}],"units":1,"requests":1,"retries":0,"throttled":0,"recordsAt":"results","timing":{"startedAt":"2026-11-21T00:00:01.000Z","ms":8},"operation":"sourcing_next","fresh":1,"freshKeys":[987654321],"end":{"kind":"cap","detail":"maxPages"},"rawKey":"1","rawBytes":41,"rawRequest":{"key":"k2","operation":"sourcing_next","boughtAt":"2026-11-21T00:00:01.000Z","units":1}}`,
      `{"count":9,"results":[{"id":"p2","n":2}]}`,
      `{"seq":3,"slice":"PT","sliceSeq":0,"records":[{"id":"p3"},{"id":"p4"}],"checkpoint":{"key":"PT","value":2,"done":true},"ledger":[],"units":0,"requests":1,"retries":0}`
    ]
    fs.writeFileSync(path.join(dir, "000000.ndjson"), old.map((l) => `${l}\n`).join(""))
    const replayed = makePageJournal(root).pending("p", "r", 0)
    expect(replayed).toEqual([
      {
        seq: 1,
        page: {
          slice: "ES",
          seq: 0,
          fetched: {
            records: [{ id: "p1", n: 1 }],
            raw: "",
            units: 1,
            charges: [{ requestId: "req-1", operation: "sourcing_next", units: 1, at: "2026-11-21T00:00:00.000Z" }],
            operation: "sourcing_next",
            request: request(1)
          },
          checkpoint: { key: "ES", value: { next: "c1" }, done: false },
          declared: 9,
          attempts: { requests: 2, retries: 1, throttled: 1 },
          timing: { startedAt: "2026-11-21T00:00:00.000Z", ms: 12.5 },
          fresh: 1,
          freshKeys: Float64Array.from([123456789])
        },
        body: `{"results":[{"id":"p1","n":1}]}`
      },
      {
        seq: 2,
        page: {
          slice: "ES",
          seq: 1,
          fetched: {
            records: [{ id: "p2", n: 2 }],
            raw: "",
            units: 1,
            charges: [{ requestId: "req-2", operation: "sourcing_next", units: 1, at: "2026-11-21T00:00:01.000Z" }],
            recordsAt: "results",
            operation: "sourcing_next",
            request: request(2)
          },
          checkpoint: { key: "ES", value: { next: "c2" }, done: true },
          end: { kind: "cap", detail: "maxPages" },
          attempts: { requests: 1, retries: 0, throttled: 0 },
          timing: { startedAt: "2026-11-21T00:00:01.000Z", ms: 8 },
          fresh: 1,
          freshKeys: Float64Array.from([987654321])
        },
        body: old[2]
      },
      {
        seq: 3,
        page: {
          slice: "PT",
          seq: 0,
          fetched: { records: [{ id: "p3" }, { id: "p4" }], raw: "", units: 0, charges: [] },
          checkpoint: { key: "PT", value: 2, done: true },
          attempts: { requests: 1, retries: 0, throttled: 0 },
          fresh: 2 // no keys counted then: every record counts as new
        }
      }
    ])
    // and the page record is written back under the same field names
    const again = makePageJournal(tempRoot())
    const w = again.open("p", "r")
    for (const e of replayed) w.append(e)
    w.close()
    const lines = fs
      .readFileSync(path.join(again.root, "p", "r", "000000.ndjson"), "utf8")
      .trimEnd()
      .split("\n")
    expect(lines.map((l) => JSON.parse(l))).toEqual(
      [...old.slice(0, 3), old[3]!.replace(`"retries":0}`, `"retries":0,"throttled":0,"fresh":2}`)].map((l) => JSON.parse(l))
    )
  })
})
