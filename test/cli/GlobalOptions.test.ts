/**
 * Global options before the subcommand move after it (in-process, on the real command tree);
 * an option the subcommand does not take is refused naming it; the unknown-flag check still
 * sees the rewritten line.
 */
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { commands } from "../../src/cli/Commands.js"
import { scanArgs } from "../../src/cli/Flags.js"
import { hoistGlobalOptions } from "../../src/cli/GlobalOptions.js"

const argv = (...args: Array<string>) => ["node", "estate-etl", ...args]
const hoisted = (...args: Array<string>) => Either.getOrThrow(hoistGlobalOptions(commands, argv(...args))).slice(2)

describe("hoistGlobalOptions", () => {
  it("moves --config, -c and --warehouse given before the subcommand to just after it", () => {
    expect(hoisted("--config", "x.json", "run", "nightly")).toEqual(["run", "--config", "x.json", "nightly"])
    expect(hoisted("-c", "x.json", "--warehouse=w.duckdb", "status", "-v")).toEqual([
      "status",
      "-c",
      "x.json",
      "--warehouse=w.duckdb",
      "-v"
    ])
    expect(hoisted("--config=x.json", "alerts", "feeds", "list", "--json")).toEqual([
      "alerts",
      "feeds",
      "list",
      "--config=x.json",
      "--json"
    ])
    expect(hoisted("alerts", "--config", "x.json", "feeds", "list")).toEqual(["alerts", "feeds", "list", "--config", "x.json"])
    expect(hoisted("--log-level", "debug", "--config", "x.json", "config", "show")).toEqual([
      "--log-level",
      "debug",
      "config",
      "show",
      "--config",
      "x.json"
    ])
  })

  it("leaves lines with nothing to move as they are", () => {
    for (const line of [
      ["run", "--config", "x.json", "nightly"],
      ["run", "nightly", "--config", "x.json"],
      ["query", "--config", "x", "SELECT 1"],
      ["--config", "x.json"]
    ])
      expect(hoisted(...line)).toEqual(line)
  })

  it("refuses an option the subcommand does not take; the moved line passes the unknown-flag check", () => {
    const refused = hoistGlobalOptions(commands, argv("--warehouse", "w.duckdb", "merge", "a", "b"))
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      "merge: merge takes no --warehouse (an option given before the subcommand must be one of its own)"
    )
    expect(scanArgs(commands, argv(...hoisted("--config", "x.json", "--warehouse", "w", "run", "nightly"))).error).toBeUndefined()
    expect(scanArgs(commands, argv(...hoisted("--config", "x.json", "run", "--confg", "y"))).error?.message).toBe(
      "run: unknown flag --confg; did you mean --config?"
    )
  })
})
