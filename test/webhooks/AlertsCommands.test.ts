/**
 * The `alerts` command group against a sandbox reached as a remote target: feeds create, list,
 * show and delete, the webhook URL, secret rotation (graceful and immediate, as the sandbox's
 * secret store sees it), and `alerts load`.
 */
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { alertsCommand } from "../../src/cli/AlertsCommands.js"
import { SANDBOX_USER } from "../../src/sandbox/Credentials.js"
import { webhookSecretStore } from "../../src/sandbox/token/TokenHost.js"
import { startTestSandbox } from "../support/sandbox.js"
import { eventBody, tempDir } from "./support.js"

type Sb = Awaited<ReturnType<typeof startTestSandbox>>
let sb: Sb
let configPath: string
const saved = { email: process.env.SVC_EMAIL, password: process.env.SVC_PASSWORD }

beforeAll(async () => {
  sb = await startTestSandbox()
  configPath = nodePath.join(tempDir(), "settings.json")
  fs.writeFileSync(configPath, JSON.stringify({ service: { target: "remote", platformUrl: sb.platformUrl, apiUrl: sb.apiUrl } }))
  process.env.SVC_EMAIL = SANDBOX_USER.email
  process.env.SVC_PASSWORD = SANDBOX_USER.password
})
afterAll(async () => {
  await sb.close()
  for (const [k, v] of [["SVC_EMAIL", saved.email], ["SVC_PASSWORD", saved.password]] as const) {
    if (v === undefined) delete process.env[k]
    else process.env[k] = v
  }
})

const cli = Command.run(Command.make("estate-etl").pipe(Command.withSubcommands([alertsCommand])), { name: "estate-etl", version: "test" })

/** Runs `estate-etl alerts ...args` in-process; stdout as text. */
const run = async (...args: Array<string>) => {
  const out: Array<string> = []
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
    out.push(String(chunk))
    return true
  })
  const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
  try {
    await Effect.runPromise(cli(["node", "estate-etl", "alerts", ...args]).pipe(Effect.provide(NodeContext.layer)))
  } finally {
    spy.mockRestore()
    err.mockRestore()
  }
  return out.join("")
}

describe("alerts commands", () => {
  it("creates, lists, shows and deletes feeds", async () => {
    const created = JSON.parse(await run("feeds", "create", "--config", configPath, "--name", "cuts", "--subtype", "price_down", "--filter", '{"location_ids":[1]}', "--json"))
    expect(created).toMatchObject({ feed_id: expect.stringMatching(/^feed_\d+$/), name: "cuts", filter: { location_ids: [1], alert_subtypes: ["price_down"] } })
    const other = JSON.parse(await run("feeds", "create", "--config", configPath, "--name", "all", "--json"))
    const list = JSON.parse(await run("feeds", "list", "--config", configPath, "--json"))
    expect(list.map((f: { feed_id: string }) => f.feed_id)).toEqual([other.feed_id, created.feed_id])
    expect(await run("feeds", "list", "--config", configPath)).toContain("cuts")
    expect(JSON.parse(await run("feeds", "show", "--config", configPath, created.feed_id))).toMatchObject({ name: "cuts" })
    expect(await run("feeds", "delete", "--config", configPath, created.feed_id)).toContain(`deleted ${created.feed_id}`)
    const after = JSON.parse(await run("feeds", "list", "--config", configPath, "--json"))
    expect(after.map((f: { feed_id: string }) => f.feed_id)).toEqual([other.feed_id])
  })

  it("sets the webhook URL and rotates the secret, gracefully or at once", async () => {
    const store = webhookSecretStore(sb.context)
    expect(JSON.parse(await run("webhook", "set", "--config", configPath, "http://127.0.0.1:8787/alerts"))).toEqual({ url: "http://127.0.0.1:8787/alerts" })
    expect(store.url(SANDBOX_USER.email)).toBe("http://127.0.0.1:8787/alerts")
    const before = store.activeSecrets(SANDBOX_USER.email)
    const graceful = (await run("rotate-secret", "--config", configPath)).trim()
    expect(graceful).toMatch(/^whsec_/)
    expect(store.activeSecrets(SANDBOX_USER.email)).toEqual([graceful, ...before])
    const immediate = (await run("rotate-secret", "--config", configPath, "--immediate")).trim()
    expect(store.activeSecrets(SANDBOX_USER.email)).toEqual([immediate])
  })

  it("loads a spool into the warehouse once", async () => {
    const dir = tempDir()
    const spool = nodePath.join(dir, "spool.ndjson")
    const line = (id: string, alertId: number) => JSON.stringify({ id, timestamp: 1_780_000_000, receivedAt: 1_780_000_000_000, body: eventBody(alertId) }) + "\n"
    fs.writeFileSync(spool, line("a", 1) + line("b", 2) + line("a", 1))
    const args = ["load", "--spool", spool, "--warehouse", nodePath.join(dir, "w.duckdb"), "--json"]
    expect(JSON.parse(await run(...args))).toMatchObject({ read: 3, loaded: 2, duplicates: 1 })
    expect(JSON.parse(await run(...args))).toMatchObject({ read: 0, loaded: 0 })
  })
})
