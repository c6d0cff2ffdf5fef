/**
 * The `alerts` command group against a sandbox reached as a remote target: feeds create, list,
 * show and delete, the webhook URL, secret rotation (graceful and immediate, as the sandbox's
 * secret store and the receiver's secrets file see it, and a running receiver refusing a revoked
 * secret), and `alerts load`.
 */
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it, vi } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { alertsCommand } from "../../src/cli/AlertsCommands.js"
import { SANDBOX_USER } from "../../src/sandbox/Credentials.js"
import { webhookSecretStore } from "../../src/sandbox/token/TokenHost.js"
import { startReceiver } from "../../src/webhooks/Receiver.js"
import { parseSecretsFile } from "../../src/webhooks/Secrets.js"
import { startTestSandbox } from "../support/sandbox.js"
import { deliver, eventBody, spoolLines, tempDir } from "./support.js"

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
  for (const [k, v] of [
    ["SVC_EMAIL", saved.email],
    ["SVC_PASSWORD", saved.password]
  ] as const) {
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
    const created = JSON.parse(
      await run(
        "feeds",
        "create",
        "--config",
        configPath,
        "--name",
        "cuts",
        "--subtype",
        "price_down",
        "--filter",
        '{"location_ids":[1]}',
        "--json"
      )
    )
    expect(created).toMatchObject({
      feed_id: expect.stringMatching(/^feed_\d+$/),
      name: "cuts",
      filter: { location_ids: [1], alert_subtypes: ["price_down"] }
    })
    const other = JSON.parse(await run("feeds", "create", "--config", configPath, "--name", "all", "--json"))
    const list = JSON.parse(await run("feeds", "list", "--config", configPath, "--json"))
    expect(list.map((f: { feed_id: string }) => f.feed_id)).toEqual([other.feed_id, created.feed_id])
    expect(await run("feeds", "list", "--config", configPath)).toContain("cuts")
    expect(JSON.parse(await run("feeds", "show", "--config", configPath, created.feed_id))).toMatchObject({ name: "cuts" })
    expect(await run("feeds", "delete", "--config", configPath, created.feed_id)).toContain(`deleted ${created.feed_id}`)
    const after = JSON.parse(await run("feeds", "list", "--config", configPath, "--json"))
    expect(after.map((f: { feed_id: string }) => f.feed_id)).toEqual([other.feed_id])
  })

  it("sets the webhook URL and rotates the secret, gracefully or at once, rewriting the secrets file", async () => {
    const store = webhookSecretStore(sb.context)
    const file = nodePath.join(tempDir(), "secrets")
    const fileSecrets = () => parseSecretsFile(fs.readFileSync(file, "utf8")).map((s) => [Redacted.value(s.secret), s.until !== undefined])
    expect(JSON.parse(await run("webhook", "set", "--config", configPath, "http://127.0.0.1:8787/alerts"))).toEqual({
      url: "http://127.0.0.1:8787/alerts"
    })
    expect(store.url(SANDBOX_USER.email)).toBe("http://127.0.0.1:8787/alerts")
    const before = store.activeSecrets(SANDBOX_USER.email)
    const first = (await run("rotate-secret", "--config", configPath, "--secrets-file", file)).trim()
    expect(first).toMatch(/^whsec_/)
    expect(store.activeSecrets(SANDBOX_USER.email)).toEqual([first, ...before])
    expect(fileSecrets()).toEqual([[first, false]])
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    const graceful = (await run("rotate-secret", "--config", configPath, "--secrets-file", file)).trim()
    expect(fileSecrets()).toEqual([
      [graceful, false],
      [first, true]
    ])
    const immediate = (await run("rotate-secret", "--config", configPath, "--secrets-file", file, "--immediate")).trim()
    expect(store.activeSecrets(SANDBOX_USER.email)).toEqual([immediate])
    expect(fileSecrets()).toEqual([[immediate, false]])
  })

  it("a running receiver refuses a secret revoked by rotate-secret --immediate", async () => {
    const dir = tempDir()
    const file = nodePath.join(dir, "secrets")
    const old = (await run("rotate-secret", "--config", configPath, "--secrets-file", file, "--immediate")).trim()
    const scope = Effect.runSync(Scope.make())
    try {
      const r = await Effect.runPromise(
        Scope.extend(startReceiver({ spoolPath: nodePath.join(dir, "spool.ndjson"), secretsFile: file }), scope)
      )
      const send = (id: string, secret: string) =>
        deliver(r.url, { id, body: eventBody(1), timestamp: Math.floor(Date.now() / 1000), secrets: [secret] })
      expect((await send("before", old)).status).toBe(204)
      // Graceful: both accepted during the grace.
      const graceful = (await run("rotate-secret", "--config", configPath, "--secrets-file", file)).trim()
      expect((await send("grace_old", old)).status).toBe(204)
      expect((await send("grace_new", graceful)).status).toBe(204)
      // Immediate: every earlier secret refused from the next delivery on, no restart.
      const fresh = (await run("rotate-secret", "--config", configPath, "--secrets-file", file, "--immediate")).trim()
      expect(await send("revoked_old", old)).toEqual({ status: 401, body: { error: "Forged" } })
      expect((await send("revoked_graceful", graceful)).status).toBe(401)
      expect((await send("after", fresh)).status).toBe(204)
      expect(spoolLines(r.spoolPath).map((l) => l.id)).toEqual(["before", "grace_old", "grace_new", "after"])
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })

  it("loads a spool into the warehouse once", async () => {
    const dir = tempDir()
    const spool = nodePath.join(dir, "spool.ndjson")
    const line = (id: string, alertId: number) =>
      JSON.stringify({ id, timestamp: 1_780_000_000, receivedAt: 1_780_000_000_000, body: eventBody(alertId) }) + "\n"
    fs.writeFileSync(spool, line("a", 1) + line("b", 2) + line("a", 1))
    const args = ["load", "--spool", spool, "--warehouse", nodePath.join(dir, "w.duckdb"), "--json"]
    expect(JSON.parse(await run(...args))).toMatchObject({ read: 3, loaded: 2, duplicates: 1 })
    expect(JSON.parse(await run(...args))).toMatchObject({ read: 0, loaded: 0 })
  })

  it("without --warehouse, loads into the settings' warehouse, as every other command reads it", async () => {
    const dir = tempDir()
    const spool = nodePath.join(dir, "spool.ndjson")
    fs.writeFileSync(spool, JSON.stringify({ id: "c", timestamp: 1_780_000_000, receivedAt: 1_780_000_000_000, body: eventBody(3) }) + "\n")
    const warehouse = nodePath.join(dir, "settings-warehouse.duckdb")
    const config = nodePath.join(dir, "settings.json")
    fs.writeFileSync(config, JSON.stringify({ warehouse }))
    expect(JSON.parse(await run("load", "--config", config, "--spool", spool, "--json"))).toMatchObject({ read: 1, loaded: 1 })
    expect(fs.existsSync(warehouse)).toBe(true)
  })
})
