/**
 * The baselines of the throughput figures, fetching exactly the pages the pipelines fetch:
 * the floor: each page fetched and `JSON.parse`d, nothing else (no decode, no rows, no DuckDB).
 * `FloorRun.ts` runs it in a fresh process; `HandLoader.ts` lands the same sourcing pages.
 * Slices run side by side up to the same concurrency as the pipeline.
 */
import { SANDBOX_API_KEY } from "../src/sandbox/Credentials.js"

export interface Place {
  readonly country: string
  readonly location_ids?: ReadonlyArray<number>
}

export interface FloorResult {
  readonly records: number
  readonly pages: number
  readonly elapsedMs: number
}

const auth = { authorization: `Bearer ${SANDBOX_API_KEY}` }

/**
 * `fetch`, tried again on a transport error: the sandbox closes idle keep-alive sockets after
 * 5 s, and a request racing that close fails with ECONNRESET (the toolkit's clients retry too).
 */
export const fetchAgain = async (url: string, init?: RequestInit): Promise<Response> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetch(url, init)
    } catch (e) {
      if (attempt >= 3) throw e
    }
  }
}

/** Runs `work` over `items`, at most `concurrency` at once. */
export const pool = async <A>(items: ReadonlyArray<A>, concurrency: number, work: (a: A) => Promise<void>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!)
    })
  )
}

/** Every sourcing page of `places` (cursor chains), handing each parsed body to `onPage`. */
export const sourcingPages = async (
  platformUrl: string,
  places: ReadonlyArray<Place>,
  options: { operation: string; pageSize: number; concurrency: number; maxPages?: number },
  onPage: (body: { results: Array<Record<string, unknown>>; next?: string | null }) => Promise<void> | void
): Promise<FloorResult> => {
  let records = 0
  let pages = 0
  const t0 = performance.now()
  await pool(places, options.concurrency, async (place) => {
    let res = await fetchAgain(`${platformUrl}/v1/property-sourcing/searches`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ ...place, operation: options.operation, limit: options.pageSize })
    })
    for (let n = 1; ; n++) {
      if (!res.ok) throw new Error(`sourcing page: ${res.status} ${await res.text()}`)
      const body = JSON.parse(await res.text())
      pages++
      records += body.results.length
      await onPage(body)
      if (!body.next || (options.maxPages !== undefined && n >= options.maxPages)) break
      res = await fetchAgain(body.next, { headers: auth })
    }
  })
  return { records, pages, elapsedMs: performance.now() - t0 }
}

/** Every plot search page (offset paging) of `criteria`. */
export const plotPages = async (
  platformUrl: string,
  criteria: Record<string, unknown>,
  options: { pageSize: number; maxPages: number },
  onPage: (body: { results: Array<Record<string, unknown>> }) => Promise<void> | void
): Promise<FloorResult> => {
  let records = 0
  let pages = 0
  const t0 = performance.now()
  for (let n = 0; n < options.maxPages; n++) {
    const res = await fetchAgain(`${platformUrl}/v1/ai/plots/search`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ criteria: { ...criteria, limit: options.pageSize, offset: n * options.pageSize } })
    })
    if (!res.ok) throw new Error(`plot page: ${res.status} ${await res.text()}`)
    const body = JSON.parse(await res.text())
    pages++
    const list = Array.isArray(body.results) ? body.results : []
    records += list.length
    await onPage({ results: list })
    if (list.length < options.pageSize) break
  }
  return { records, pages, elapsedMs: performance.now() - t0 }
}

/** One time-series request per body on the token host (after one login), each body parsed. */
export const timeSeriesCalls = async (
  apiUrl: string,
  user: { email: string; password: string },
  bodies: ReadonlyArray<Record<string, unknown>>,
  concurrency: number
): Promise<FloorResult> => {
  const login = await fetchAgain(`${apiUrl}/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(user)
  })
  const { access_token } = JSON.parse(await login.text()) as { access_token: string }
  let records = 0
  const t0 = performance.now()
  await pool(bodies, concurrency, async (body) => {
    const res = await fetchAgain(`${apiUrl}/market-analytics-api/time-series`, {
      method: "POST",
      headers: { authorization: `Bearer ${access_token}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    const text = await res.text()
    if (res.status >= 300) throw new Error(`time series: ${res.status} ${text}`)
    const parsed = text === "" ? [] : JSON.parse(text)
    records += 1 + (Array.isArray(parsed) ? parsed.length : 0)
  })
  return { records, pages: bodies.length, elapsedMs: performance.now() - t0 }
}
