#!/usr/bin/env node
/**
 * The `estate-etl` command line. Commands: list, plan, run, status, export, reload, query,
 * merge, alerts, serve-alerts, sandbox, demo. Exit codes: 0 done, 2 bad input, 3 budget or retry
 * budget reached (resumable), 4 payment required, 5 authentication, 1 other.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { runCliMain } from "./Cli.js"

NodeRuntime.runMain(
  Effect.flatMap(runCliMain(process.argv), (code) => Effect.sync(() => process.exit(code))),
  { disableErrorReporting: true, disablePrettyLogger: true }
)
