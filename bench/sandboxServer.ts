/**
 * The sandbox in its own process, so its page generation does not share the measured process's
 * event loop (on 2 cores it gets one, the toolkit the other). Options come as one JSON argument
 * (`SandboxOptions`); the first stdout line is `{"platformUrl","apiUrl"}`. Control goes through
 * the sandbox's own HTTP endpoints under `/__sandbox/`. Exits when its parent closes stdin.
 */
import { startSandbox } from "../src/sandbox/Sandbox.js"
import type { SandboxOptions } from "../src/sandbox/SandboxConfig.js"

const options = JSON.parse(process.argv[2] ?? "{}") as SandboxOptions
const sandbox = await startSandbox({ webhookPollMs: 0, ...options })
process.stdout.write(`${JSON.stringify({ platformUrl: sandbox.platformUrl, apiUrl: sandbox.apiUrl })}\n`)
const stop = () => void sandbox.close().finally(() => process.exit(0))
process.stdin.on("end", stop)
process.stdin.on("close", stop)
process.stdin.resume()
process.on("SIGTERM", stop)
