/**
 * `new pipeline <name> --from <pipeline or operation>`: writes `pipelines/<name>.mjs`, a built-in
 * pipeline re-declared under the new name with its own default parameters (`derivePipeline`),
 * and `pipelines/<name>.test.mjs`, beside the settings file (`src/scaffold/DerivedPipelineModule.ts`).
 * The defaults are the settings' `pipelines.<base>.params` when there are some (else the
 * base's own). The new module is loaded once written, so a module that would not load fails here,
 * and a note says when the settings' `pipelineModules` do not pick it up or its parameters need
 * editing before a run.
 */
import { Args, Command, Options } from "@effect/cli"
import { Effect, Either, Option } from "effect"
import * as nodePath from "node:path"
import { builtInPipeline, loadCatalogue, loadCliSettingsAndCatalogue, originOf } from "../wiring/Catalogue.js"
import { resolveParams } from "../pipeline/Params.js"
import { PIPELINE_NAME } from "../pipeline/PipelineCheck.js"
import { derivedModule, derivedTest } from "../scaffold/DerivedPipelineModule.js"
import { writeScaffold, wroteLines } from "../scaffold/writeScaffold.js"
import { InvalidInput } from "../shared/InvalidInput.js"

const config = Options.file("config").pipe(
  Options.withAlias("c"),
  Options.optional,
  Options.withDescription("Settings file (JSON). Default: estate-etl.json, else config/sandbox.json, when present")
)

const newPipeline = Command.make(
  "pipeline",
  {
    config,
    name: Args.text({ name: "name" }).pipe(Args.withDescription("The new pipeline's name, kebab-case (my-plots)")),
    from: Options.text("from").pipe(
      Options.withDescription("The built-in pipeline (plots-germany) or operation (plot_search) to start from")
    ),
    force: Options.boolean("force").pipe(Options.withDescription("Overwrite the module and its test if they exist"))
  },
  (o) =>
    Effect.gen(function* () {
      if (!PIPELINE_NAME.test(o.name))
        return yield* new InvalidInput({
          field: "name",
          detail: `"${o.name}" is not kebab-case (lower-case letters, digits, -), e.g. my-plots`
        })
      const base = yield* Either.match(builtInPipeline(o.from, "--from"), { onLeft: Effect.fail, onRight: Effect.succeed })
      const { settings, file, catalogue } = yield* loadCliSettingsAndCatalogue(o.config)
      const dir = nodePath.join(file === undefined ? "." : nodePath.dirname(file), "pipelines")
      const moduleRel = nodePath.join(dir, `${o.name}.mjs`)
      if (catalogue.all.some((p) => p.name === o.name)) {
        const origin = originOf(catalogue, o.name)
        const same = nodePath.resolve(origin) === nodePath.resolve(moduleRel)
        if (!(same && o.force))
          return yield* new InvalidInput({
            field: "name",
            detail: `a pipeline "${o.name}" exists already (${origin}); ${same ? "--force overwrites its module" : "choose another name"}`
          })
      }
      const params = settings.pipelines[base.name]?.params ?? {}
      const input = { name: o.name, base, from: o.from, params }
      const written = yield* writeScaffold(
        dir,
        [
          { path: `${o.name}.mjs`, about: `${base.name} as ${o.name}, its parameters to edit`, text: derivedModule(input) },
          { path: `${o.name}.test.mjs`, about: `its test: node --test ${nodePath.join(dir, "*.test.mjs")}`, text: derivedTest(input) }
        ],
        { force: o.force, field: "new pipeline" }
      )
      process.stdout.write(wroteLines(written.map((f) => ({ ...f, path: nodePath.join(dir, f.path) }))))
      // what `list` and `run` will load: the new module must be among it
      const after = yield* loadCatalogue(settings, file)
      const notes: Array<string> = []
      if (!after.user.some((u) => u.pipeline.name === o.name))
        notes.push(`note: the settings' pipelineModules do not include ${moduleRel}; add it there for list and run to see ${o.name}`)
      const check = resolveParams({ ...base, name: o.name }, params, [])
      if (Either.isLeft(check)) notes.push(`note: ${o.name} needs parameters before it runs (${check.left.message}); edit ${moduleRel}`)
      process.stdout.write(
        [
          ...notes,
          `next: npx estate-etl plan ${o.name}; npx estate-etl run ${o.name}; node --test ${nodePath.join(dir, `${o.name}.test.mjs`)}`,
          ""
        ].join("\n")
      )
    })
).pipe(
  Command.withDescription(
    "Write <name>.mjs (a built-in pipeline under a new name with its own parameters) and its test into pipelines/ beside the settings file. Example: estate-etl new pipeline my-plots --from plots-germany"
  )
)

export const newCommand = Command.make("new").pipe(
  Command.withDescription("Scaffold a pipeline module in this repository. Example: estate-etl new pipeline cheap-plots --from plot_search"),
  Command.withSubcommands([newPipeline])
)
