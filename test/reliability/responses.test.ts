/**
 * Responses gone wrong, served by a proxy in front of the sandbox's platform host from the third
 * page of a paged run on: cut JSON, a wrong content type, HTML error pages, problem bodies with
 * codes the spec does not list, a page whose shape is wrong, a record with a field of the wrong
 * type. Each ends in a clear one-line error (never a stack trace) with only whole pages in the
 * warehouse, and a resume once the service behaves lands the clean run's data; a record of the
 * wrong type goes to `_rejects` while the rest of its page lands.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readWarehouse } from "../support/chaos.js"
import { startTestSandbox } from "../support/sandbox.js"
import { figuresOf, rowHashes } from "./compare.js"
import { cli, settingsFile, STACK_LINE } from "./inProcess.js"
import { type Answer, startProxy } from "./proxy.js"

type Sandbox = Awaited<ReturnType<typeof startTestSandbox>>
const PIPELINE = "sourcing-search"
const PAGE = 10
const json = { "content-type": "application/json" }
const problem = (status: number, code: string) => ({
  status,
  headers: { "content-type": "application/problem+json" },
  body: JSON.stringify({
    type: `https://platform.example/errors/${code}`,
    title: "Something new",
    status,
    detail: `the ${code} happened`,
    code,
    request_id: "req_0123456789abcdef"
  })
})
const withBody = (a: Answer, f: (j: any) => unknown): Answer => ({ ...a, body: JSON.stringify(f(JSON.parse(a.body))) })

/**
 * A transient-looking answer (5xx) is retried; with the run's one retry spent it pauses, and the
 * message names what the last attempt got.
 */
const transient = (status: number) =>
  new RegExp(`retry budget spent \\(1 of 1 retries\\) at sourcing_next \\(last error: [^)]*${status}[^;]*\\); the run can be resumed later`)

interface WrongCase {
  readonly name: string
  readonly answer: (upstream: () => Promise<Answer>) => Promise<Answer> | Answer
  /** What the one-line error must say. */
  readonly message: RegExp
  /** Calls in the ledger after the failure (default 2: the whole pages). */
  readonly paidPages?: number
  /**
   * The bad answer was paid and archived: a plain resume reads it again from the archive (0
   * units) and stops the same way, naming `--fresh`; the resume that buys it again passes it.
   */
  readonly archived?: boolean
}

const cases: ReadonlyArray<WrongCase> = [
  {
    name: "truncated JSON (200, valid framing)",
    answer: () => ({ status: 200, headers: json, body: '{"results": [{"id": "abc", "pri' }),
    message: /JSON|truncat|parse/i
  },
  {
    name: "wrong content type (text/plain)",
    answer: async (up) => ({ ...(await up()), headers: { "content-type": "text/plain" } }),
    message: /content.type|text\/plain/i
  },
  {
    name: "an HTML error page (502)",
    answer: () => ({ status: 502, headers: { "content-type": "text/html" }, body: "<html><body><h1>502 Bad Gateway</h1></body></html>" }),
    message: transient(502)
  },
  {
    name: "an HTML page with 200",
    answer: () => ({
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<!doctype html><title>Login</title><p>Please sign in</p>"
    }),
    message: /html|content.type/i
  },
  { name: "a problem with an unknown code (409)", answer: () => problem(409, "frobnicated"), message: /409|frobnicated/ },
  { name: "a problem with an unknown code (418)", answer: () => problem(418, "teapot_mode"), message: /418|teapot_mode/ },
  {
    name: "a problem body that is not JSON",
    answer: () => ({ status: 500, headers: { "content-type": "application/problem+json" }, body: "Internal Server Error" }),
    message: transient(500)
  },
  // a paid answer of an unexpected shape stays charged: its charge is in the ledger, its body in the raw archive
  {
    name: "a page whose results are not a list",
    answer: async (up) => withBody(await up(), (j) => ({ ...j, results: "none" })),
    message: /UnexpectedShape: expected a list at "results", found a string/,
    paidPages: 3,
    archived: true
  }
]

describe("responses gone wrong", () => {
  let sandbox: Sandbox
  let proxy: Awaited<ReturnType<typeof startProxy>>
  let root: string
  let clean: Awaited<ReturnType<typeof figuresOf>>
  let cleanFile: string
  const pipelines = { [PIPELINE]: { params: { country: "ES", pageSize: PAGE, maxPages: 5, sample: true } } }
  // one retry in all, so a wrong answer that looks transient pauses the run quickly
  const run = (dir: string, extra: ReadonlyArray<string> = []) =>
    cli([
      "run",
      PIPELINE,
      "--config",
      settingsFile(dir, { platformUrl: proxy.url, apiUrl: sandbox.apiUrl }, { pipelines, budget: { retryFloor: 1, retryRatio: 0 } }),
      ...extra
    ])
  /** From the third sourcing request on (or only that one), every answer is `answer`'s. */
  const breakFromPage3 = (answer: WrongCase["answer"], only = false) => {
    let n = 0
    proxy.setRewrite((seen, upstream) => {
      if (!seen.url.includes("property-sourcing")) return undefined
      const i = n++
      return i === 2 || (i > 2 && !only) ? answer(upstream) : undefined
    })
  }

  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 2000 } })
    proxy = await startProxy(sandbox.platformUrl)
    root = fs.mkdtempSync(path.join(os.tmpdir(), "estate-responses-"))
    const dir = fs.mkdtempSync(path.join(root, "clean-"))
    const r = await run(dir)
    expect(r.code, r.messages.join("\n")).toBe(0)
    cleanFile = path.join(dir, "warehouse.duckdb")
    clean = await figuresOf(cleanFile, [PIPELINE])
    expect(clean.sourcing_properties!.rows).toBe(5 * PAGE)
  })
  afterAll(async () => {
    await proxy.close()
    await sandbox.close()
    fs.rmSync(root, { recursive: true, force: true })
  })

  for (const c of cases) {
    it(`${c.name}: a clear one-line error, only whole pages kept, a resume lands the clean data`, async () => {
      const dir = fs.mkdtempSync(path.join(root, "wrong-"))
      const file = path.join(dir, "warehouse.duckdb")
      breakFromPage3(c.answer)
      let first
      try {
        first = await run(dir)
      } finally {
        proxy.setRewrite(undefined)
      }
      expect(first.code, first.stdout + first.stderr).not.toBe(0)
      expect(first.stdout + first.stderr).not.toMatch(STACK_LINE)
      const errors = first.messages.filter((m) => m.startsWith(`${PIPELINE}:`) || m.startsWith("error:"))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatch(c.message)
      // the two good pages are committed whole, nothing of the third
      const [w] = await readWarehouse<{ rows: bigint | number; pages: bigint | number }>(
        file,
        `SELECT (SELECT count(*) FROM sourcing_properties) AS rows, (SELECT count(*) FROM _ledger) AS pages`
      )
      expect(Number(w!.pages)).toBe(c.paidPages ?? 2)
      expect(Number(w!.rows)).toBe(2 * PAGE)
      if (c.archived) {
        const again = await run(dir)
        expect(again.code, again.messages.join("\n")).toBe(7)
        expect(again.messages.join("\n")).toMatch(/read again from the raw archive \(0 units\).*--fresh to buy it again/)
        const [l] = await readWarehouse<{ n: bigint | number }>(file, `SELECT count(*) AS n FROM _ledger`)
        expect(Number(l!.n)).toBe(c.paidPages)
      }
      const resumed = await run(dir, c.archived ? ["--fresh"] : [])
      expect(resumed.code, resumed.messages.join("\n")).toBe(0)
      expect(await figuresOf(file, [PIPELINE])).toEqual(clean)
    })
  }

  it("a record with a field of the wrong type goes to _rejects; the rest of its page lands", async () => {
    const dir = fs.mkdtempSync(path.join(root, "reject-"))
    const file = path.join(dir, "warehouse.duckdb")
    let badId = ""
    breakFromPage3(
      async (up) =>
        withBody(await up(), (j) => {
          badId = j.results[0].id
          return { ...j, results: [{ ...j.results[0], id: { not: "a string" } }, ...j.results.slice(1)] }
        }),
      true
    )
    let r
    try {
      r = await run(dir)
    } finally {
      proxy.setRewrite(undefined)
    }
    expect(r.code, r.messages.join("\n")).toBe(0)
    expect(r.stdout + r.stderr).not.toMatch(STACK_LINE)
    const [rejects] = await readWarehouse<{ n: bigint | number; raw: string }>(
      file,
      `SELECT count(*) AS n, any_value(raw) AS raw FROM _rejects`
    )
    expect(Number(rejects!.n)).toBe(1)
    expect(rejects!.raw).toContain("a string")
    const want = await rowHashes(cleanFile, "sourcing_properties", ["id"])
    const got = await rowHashes(file, "sourcing_properties", ["id"])
    want.delete(badId)
    expect(got).toEqual(want)
  })
})
