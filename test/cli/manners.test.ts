/**
 * Manners of the real CLI process (no sandbox needed):
 * - no colour off a terminal or under NO_COLOR: `--help` and @effect/cli's own messages piped
 *   carry no ESC byte; on a terminal (a pty from util-linux `script`) the help's headings are
 *   bold, and NO_COLOR takes that away;
 * - `--help` of a command is one screen (at most 40 lines) with examples;
 * - "did you mean" for a misspelt command (once, not twice) and pipeline;
 * - `list` fits 100 columns, `--wide` shows everything;
 * - `--completions bash` prints a script with which bash completes commands, nested commands
 *   and each command's flags.
 * Every command's help: test/cli/help-screens.test.ts; every example it shows: test/cli/help-examples.test.ts.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { runCli } from "../support/cli.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
const MAIN = path.join(ROOT, "dist/src/cli/main.js")
const ESC = "\x1b"

/** `script` (util-linux) runs a command on a pseudo-terminal; absent, the terminal case is skipped. */
const hasScript = (() => {
  try {
    execFileSync("script", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

/** Runs the CLI on a pseudo-terminal of 120 columns; what it wrote, as the terminal got it. */
const onTerminal = (args: string, env: NodeJS.ProcessEnv) =>
  execFileSync("script", ["-qec", `stty cols 120; ${JSON.stringify(process.execPath)} ${MAIN} ${args}`, "/dev/null"], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8"
  })

const lines = (text: string) => text.replace(/\n$/, "").split("\n")

describe("CLI manners", () => {
  it("piped output has no colour; help is one screen with examples; typos get a did-you-mean; list fits 100 columns", async () => {
    const [help, runHelp, missing, typo, pipeline, list, wide, completions] = await Promise.all([
      runCli(["--help"]),
      runCli(["run", "--help"]),
      runCli(["query"]),
      runCli(["stauts"]),
      runCli(["run", "plots-germny"]),
      runCli(["list"]),
      runCli(["list", "--wide"]),
      runCli(["--completions", "bash"])
    ])
    for (const r of [help, runHelp, missing, typo, pipeline, list, wide, completions]) {
      expect(r.stdout + r.stderr).not.toContain(ESC)
    }

    expect(help.code).toBe(0)
    expect(lines(help.stdout).length).toBeLessThanOrEqual(40)
    expect(help.stdout).toMatch(/^Commands:\n(?: {2}\S.*\n)+/m)
    expect(help.stdout).toMatch(/^ {2}state +What the warehouse remembers/m)
    expect(help.stdout).toMatch(/^Examples:\n {2}estate-etl list\n/m)
    expect(runHelp.code).toBe(0)
    expect(lines(runHelp.stdout).length).toBeLessThanOrEqual(40)
    expect(runHelp.stdout).toMatch(/^Usage: estate-etl run \[options\] <pipeline-or-set>\.\.\.$/m)
    expect(runHelp.stdout).toMatch(/^ {2}--max-units <text> +Units this invocation may spend/m)
    expect(runHelp.stdout).toMatch(/^Examples:\n {2}estate-etl run nightly\n/m)

    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("Missing argument <sql>")

    expect(typo.code).toBe(2)
    expect(typo.stderr).toBe(
      `error: estate-etl: unknown command "stauts"; did you mean status?; commands: list, plan, probe, run, status, trace, export, reload, query, report, merge, state, drop, alerts, serve-alerts, sandbox, demo, config, init, new\n`
    )
    expect(pipeline.code).toBe(2)
    expect(pipeline.stderr).toMatch(
      /^error: pipeline: unknown pipeline "plots-germny"; did you mean plots-germany\?; allowed: plots-germany, /
    )

    expect(list.code).toBe(0)
    for (const l of lines(list.stdout)) expect(l.length, l).toBeLessThanOrEqual(100)
    expect(list.stdout).toMatch(/^plots-germany +platform +plot_search +1 +plots, /m)
    expect(list.stdout).toContain("…")
    expect(Math.max(...lines(wide.stdout).map((l) => l.length))).toBeGreaterThan(100)
    expect(wide.stdout).toContain("plots, plot_agency_links")
    expect(wide.stdout).toContain("Commercial plots in Germany by criteria (plot search), with their agency links")

    expect(completions.code).toBe(0)
    expect(completions.stdout).toMatch(/^complete -F _estate-etl_bash_completions .* estate-etl$/m)
    // what bash offers after <TAB>, the script sourced as a user's shell would
    const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "estate-completions-")), "estate-etl.bash")
    fs.writeFileSync(script, completions.stdout)
    const offered = (...words: Array<string>) =>
      execFileSync(
        "bash",
        [
          "-c",
          `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _estate-etl_bash_completions estate-etl "\${COMP_WORDS[-1]}" "\${COMP_WORDS[-2]}"; echo "\${COMPREPLY[*]}"`,
          script,
          "estate-etl",
          ...words
        ],
        { encoding: "utf8" }
      ).trim()
    expect(offered("st")).toBe("state status")
    expect(offered("run", "--max")).toBe("--max-units")
    expect(offered("state", "reset", "--sl")).toBe("--slice")
    expect(offered("alerts", "feeds", "c")).toBe("create")
    expect(offered("serve-alerts", "--max-c")).toBe("--max-connections")
    fs.rmSync(path.dirname(script), { recursive: true, force: true })
  }, 120_000)

  it.skipIf(!hasScript)(
    "on a terminal the help's headings are bold, unless NO_COLOR is set",
    () => {
      const coloured = onTerminal("status --help", { NO_COLOR: "" })
      expect(coloured).toContain(`${ESC}[1mUsage:${ESC}[0m`)
      const plain = onTerminal("status --help", { NO_COLOR: "1" })
      expect(plain).not.toContain(ESC)
      expect(plain).toMatch(/^Usage: estate-etl status \[options\]/m)
    },
    60_000
  )
})
