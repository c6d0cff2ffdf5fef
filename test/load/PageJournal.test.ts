import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { type JournalEntry, makePageJournal, SEGMENT_PAGES } from "../../src/load/PageJournal.js"

const entry = (seq: number): JournalEntry => ({
  seq,
  slice: "ES",
  sliceSeq: seq - 1,
  records: [{ id: `p${seq}`, price: seq * 1000 }],
  checkpoint: { key: "ES", value: { next: `c${seq}` }, done: false },
  ledger: [{ requestId: `req-${seq}`, operation: "sourcing_next", units: 1, at: "2026-11-21T00:00:00.000Z" }],
  units: 1,
  requests: 1,
  retries: 0,
  raw: { pageKey: String(seq - 1), body: `{"results":[{"id":"p${seq}"}]}` }
})

/** A page whose records are the list in its body: journaled as the body's bytes, records re-read on replay. */
const framed = (seq: number): JournalEntry => {
  const records = [{ id: `p${seq}`, text: 'a line\nbreak, quotes " and ünïcode', n: seq }]
  return {
    ...entry(seq),
    records,
    raw: { pageKey: String(seq - 1), body: JSON.stringify({ count: 9, results: records }, null, 2) },
    recordsAt: "results"
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
    expect(text).toContain(framed(1).raw!.body) // the body as received, not escaped inside JSON
    expect(text.split(`"id": "p1"`)).toHaveLength(2) // and only once
  })

  it("takes a body given as its UTF-8 bytes (what the runner keeps) and gives it back as the same text", () => {
    const root = tempRoot()
    const journal = makePageJournal(root)
    const w = journal.open("p", "r")
    const asBytes = (e: JournalEntry): JournalEntry => ({ ...e, raw: { ...e.raw!, body: Buffer.from(e.raw!.body as string, "utf8") } })
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
})
