/**
 * A real browser for page checks: Debian's `chromium` driven by `playwright-core` (no browser
 * download). CI installs it; without it the tests that need it fail saying how to install it.
 * Every request a page makes is recorded, and any that would leave the page's own file is
 * aborted, so a page that needs the network shows up as such.
 */
import * as fs from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** Debian's chromium, started headless; a clear failure when it is not installed. */
export const launchChromium = async (): Promise<Browser> => {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: these checks need a real browser; install it with \`apt-get install chromium\` (as root)`)
  }
  return chromium.launch({ executablePath: CHROMIUM, args: ARGS })
}

export interface OpenedPage {
  readonly page: Page
  /** Every URL the page requested, its own file first. */
  readonly requests: ReadonlyArray<string>
  /** URLs other than the page's own file, each aborted. */
  readonly blocked: ReadonlyArray<string>
}

/** Opens `file` (an absolute path) in a new page of `browser`, every other request blocked and recorded. */
export const openFile = async (
  browser: Browser,
  file: string,
  viewport: { readonly width: number; readonly height: number } = { width: 1100, height: 900 }
): Promise<OpenedPage> => {
  const context = await browser.newContext({ viewport, offline: true })
  const page = await context.newPage()
  const own = new URL(`file://${file}`).href
  const requests: Array<string> = []
  const blocked: Array<string> = []
  page.on("request", (r) => void requests.push(r.url()))
  await context.route("**/*", (route) => {
    const url = route.request().url()
    if (url === own) return route.continue()
    blocked.push(url)
    return route.abort("blockedbyclient")
  })
  await page.goto(own, { waitUntil: "load" })
  return { page, requests, blocked }
}
