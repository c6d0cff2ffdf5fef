/**
 * `init`: makes the current folder a repository that runs estate-etl (settings for the embedded
 * sandbox, an example of settings for the real service, a Makefile fragment, an example pipeline
 * and its test, the credentials' variable names; `src/scaffold/InitFiles.ts`). Existing files
 * are refused unless `--force`. A `.gitignore` is never overwritten, `--force` or not: one that
 * exists gets only the lines it lacks (`src/scaffold/GitIgnore.ts`). Afterwards `estate-etl run nightly` works there with no flags:
 * the settings file is `estate-etl.json`, the first one the default lookup finds.
 */
import { Command, Options } from "@effect/cli"
import { Effect, Option } from "effect"
import * as nodePath from "node:path"
import { INIT_CONFIG } from "../config/loadSettings.js"
import { gitIgnoreLine, mergeGitIgnore } from "../scaffold/GitIgnore.js"
import { initFiles } from "../scaffold/InitFiles.js"
import { writeScaffold, wroteLines } from "../scaffold/writeScaffold.js"

const force = Options.boolean("force").pipe(
  Options.withDescription("Overwrite the files init writes that exist already (a .gitignore is never overwritten, only added to)")
)
const dir = Options.directory("dir", { exists: "either" }).pipe(
  Options.optional,
  Options.withDescription("The repository's folder (default: the current one; created when missing)")
)

export const initCommand = Command.make("init", { force, dir }, (o) =>
  Effect.gen(function* () {
    const root = nodePath.resolve(Option.getOrElse(o.dir, () => "."))
    const written = yield* writeScaffold(root, initFiles(), { force: o.force, field: "init" })
    // after the files: a refused init (existing files, no --force) touches no .gitignore either
    const ignored = yield* mergeGitIgnore(root, "init")
    process.stdout.write(
      wroteLines(written) +
        gitIgnoreLine(ignored, Math.max(...written.map((f) => f.path.length))) +
        "\n" +
        [
          "",
          `next: npx estate-etl run nightly      (the embedded sandbox; settings ${INIT_CONFIG})`,
          "      npx estate-etl list             (the built-in pipelines and yours, under pipelines/)",
          "      node --test pipelines/*.test.mjs",
          "      npx estate-etl new pipeline <name> --from <pipeline or operation>",
          "      cp .env.example .env            (for config/remote.json: the CLI reads .env itself; .gitignore keeps it out of git)",
          "`include estate-etl.mk` in your Makefile for make nightly (what changed), weekly (the full pull), plan, status, extract-<pipeline>",
          ""
        ].join("\n")
    )
  })
).pipe(
  Command.withDescription(
    `Write estate-etl settings (${INIT_CONFIG}, config/remote.example.json), estate-etl.mk, an example pipeline with its test under pipelines/ and .env.example into the current folder (existing files are refused unless --force), and a .gitignore keeping data/, .env and node_modules/ out of git (an existing one only gets the lines it lacks, never overwritten). Example: estate-etl init --dir my-data-repo`
  )
)
