/**
 * The command line's root: every command, one file each (`<Name>Command.ts`), in the order
 * `--help` lists them. Handlers load the settings, check every input before any request, then
 * hand over to the runner, the warehouse or the sandbox.
 */
import { Command } from "@effect/cli"
import { listCommand } from "./ListCommand.js"
import { planCommand } from "./PlanCommand.js"
import { runCliCommand } from "./RunCliCommand.js"
import { exportCommand } from "./ExportCommand.js"
import { reloadCommand } from "./ReloadCommand.js"
import { mergeCommand } from "./MergeCommand.js"
import { exitCodesHelp } from "./ExitCodes.js"
import { queryCommand } from "./QueryCommand.js"
import { statusCommand } from "./StatusCommand.js"
import { alertsCommand, serveAlertsCommand } from "./AlertsCommands.js"
import { demoCommand, sandboxCommand } from "./SandboxCommands.js"
import { configCommand } from "./ConfigCommand.js"
import { initCommand } from "./InitCommand.js"
import { newCommand } from "./NewPipelineCommand.js"
import { stateCommands } from "./StateCommands.js"
import { reportCommand } from "./ReportCommand.js"
import { traceCommand } from "./TraceCommand.js"
import { probeCommand } from "./ProbeCommand.js"

export const commands = Command.make("estate-etl").pipe(
  Command.withDescription(
    `Batch ETL of the real-estate data service into DuckDB and Parquet. ${exitCodesHelp} Examples: estate-etl list; estate-etl plan nightly; estate-etl run nightly; estate-etl status`
  ),
  Command.withSubcommands([
    listCommand,
    planCommand,
    probeCommand,
    runCliCommand,
    statusCommand,
    traceCommand,
    exportCommand,
    reloadCommand,
    queryCommand,
    reportCommand,
    mergeCommand,
    ...stateCommands,
    alertsCommand,
    serveAlertsCommand,
    sandboxCommand,
    demoCommand,
    configCommand,
    initCommand,
    newCommand
  ])
)
