/**
 * Every recipe of README.md and docs/*.md, as written. The fenced shell, cron and make blocks are
 * read from the files themselves, so a recipe added to the docs is either run here or named below
 * with the test that runs it; a recipe that is neither fails this test.
 *
 * The `estate-etl` commands (also as `npx estate-etl`, after a cron schedule or `cd ... &&`, with
 * environment assignments) run in this process, in order, in a scratch repository whose
 * `config/sandbox.json` and `config/production.json` (this repository's production example)
 * reach a test sandbox through `SVC_PLATFORM_URL` / `SVC_API_URL`, the credentials in the
 * environment. Each must exit 0 (or the code the recipe says it ends with), or still be serving.
 * The README's command list is a list of fragments (`list`, `plan nightly`...): each runs as
 * `estate-etl <fragment>`; a fragment that shows a syntax (`[--verbose]`, `a|b`, `<url>`) runs as
 * the concrete lines of `SYNTAX`.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sandboxEnv } from "../support/cli.js"
import { runExample, SERVING } from "../support/inProcessCli.js"
import { startTestSandbox } from "../support/sandbox.js"

const ROOT = path.resolve(import.meta.dirname, "../..")
// the Markdown files of docs/ (docs/img/ holds pictures)
const DOCS = [
  "README.md",
  ...fs
    .readdirSync(path.join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`)
]

/** Recipes that are not `estate-etl` commands, or not runnable here, and the test that runs them. */
const ELSEWHERE: ReadonlyArray<{ readonly match: RegExp; readonly by: string }> = [
  // README "In your own repository": the notebook recipes, in a CommonJS and an ESM repository made from the packed tarball
  {
    match: /^npm install --save-dev tsx typescript$|^npx tsx notebook\.mts$|^node notebook\.(mjs|cjs)$|^npx tsc -p \.$/,
    by: "test/library/newcomer.test.ts"
  },
  // positions between warehouses: the scratch repository has one warehouse, and `state reset alerts` ran before
  { match: /^state (copy|set) /, by: "test/cli/state-copy.test.ts" },
  { match: /^make (demo|test)\b/, by: "test/cli/make-targets.test.ts (make demo); make test is the CI run itself" },
  // the crontab's nights (make -s nightly / weekly): make-targets runs each target, default-week a week of them
  {
    match: /^make (-s )?(nightly|weekly)\b|^30 2 \* \* [\d*-]+ .*make (-s )?(nightly|weekly)\b/,
    by: "test/cli/make-targets.test.ts and test/cli/default-week.test.ts"
  },
  { match: /^npx tsx examples\//, by: "test/examples/examples.test.ts" },
  { match: /^make chaos|^npx tsx tools\/chaos\.ts/, by: "test/reliability/chaos-*.test.ts (the same harness, 10 kills)" },
  { match: /^(RELIABILITY_FIGURES_DIR=\S+ )?npx vitest run test\/reliability/, by: "test/reliability/ (the CI run: vitest project cli)" },
  { match: /--completions (bash|zsh)/, by: "test/cli/manners.test.ts (the completion scripts, sourced in bash)" },
  // the README's "As a dependency" block: the adoption test runs these commands in a scratch repository
  {
    match:
      /^\(cd \.\.\/estate-etl|^npm (init|install)|^npx estate-etl (init|query "select|new pipeline|list --json|run my-plots)|^node --test|^make -s -f estate-etl\.mk/,
    by: "test/cli/adopt.test.ts"
  },
  { match: /^ETL := |^nightly: |^weekly: |^extract-%: /, by: "test/cli/adopt.test.ts (the fragment `init` writes, run by make)" },
  { match: /^npx estate-etl run (nightly|weekly --full-refresh)$/, by: "test/cli/adopt.test.ts" },
  // README "Pointing at the real service": the scratch repository below holds config/production.json and the credentials
  {
    match: /^cp config\/production\.example\.json config\/production\.json|^cp \.env\.example \.env$/,
    by: "test/cli/recipes.test.ts (its scratch repository)"
  }
]

/** Fragments that show a syntax, as the lines that run. */
const SYNTAX: Readonly<Record<string, ReadonlyArray<string>>> = {
  "status [--verbose]": ["status", "status --verbose"],
  "state show [pipeline] [--json]": ["state show", "state show plots-germany --json"],
  "state reset alerts [--slice feed=1]": ["state reset alerts"],
  "export [table...] --format parquet|arrow [--history]": ["export --format parquet", "export plots --format arrow", "export --history"],
  "config show [--json]": ["config show", "config show --json"],
  // each alerts command's own examples run in test/cli/help-examples.test.ts; the secret is what serve-alerts needs next
  "alerts feeds list|create|show|delete, alerts webhook set <url>, alerts rotate-secret [--immediate]": [
    "alerts feeds list",
    "alerts rotate-secret"
  ]
}

/** Recipes that may end with another code by design. */
const ENDS_WITH: Readonly<Record<string, ReadonlyArray<number>>> = {
  // paused at the cap (3) when more results remain than its first page; done (0) when that page held them all
  "estate-etl run premises-search --max-units 40 --until-cap": [0, 3]
}

interface Recipe {
  readonly file: string
  readonly line: string
}

/** The commands of the fenced sh, bash, cron and make blocks: continuations joined, comments and prompts dropped. */
const recipesOf = (file: string): Array<Recipe> => {
  const out: Array<Recipe> = []
  let lang: string | undefined
  let pending = ""
  for (const raw of fs.readFileSync(path.join(ROOT, file), "utf8").split("\n")) {
    const fence = /^```(\S*)/.exec(raw)
    if (fence) {
      lang = lang === undefined ? fence[1]! : undefined
      continue
    }
    if (lang === undefined || !["sh", "bash", "cron", "make"].includes(lang)) continue
    const text = (pending + " " + raw.replace(/\s+#.*$/, "").trim()).trim()
    if (text.endsWith("\\")) {
      pending = text.slice(0, -1)
      continue
    }
    pending = ""
    if (text === "" || text.startsWith("#")) continue
    out.push({ file, line: text.replace(/\s+/g, " ") })
  }
  return out
}

const KNOWN_BINARIES = /^(make|npm|npx|node|cd|\(cd|estate-etl|[A-Z_]+=|\d|ETL|nightly:|extract-%:)/

/** The `estate-etl` command lines a recipe runs, or none when another test runs it. */
const commandsOf = (r: Recipe): ReadonlyArray<string> | { readonly by: string } => {
  let line = r.line
  // a fragment of the README's command list
  if (r.file === "README.md" && !KNOWN_BINARIES.test(line) && !line.startsWith("npx")) {
    const elsewhere = ELSEWHERE.find((e) => e.match.test(line))
    if (elsewhere) return elsewhere
    return (SYNTAX[line] ?? [line]).map((l) => `estate-etl ${l}`)
  }
  if (line.startsWith("node dist/bundle/main.js <command>")) return []
  const elsewhere = ELSEWHERE.find((e) => e.match.test(line))
  if (elsewhere) return elsewhere
  line = line.replace(/^(\S+ ){5}/, (m) => (/^[\d*/,-]+ /.test(m) ? "" : m)) // a cron schedule
  line = line.replace(/^cd \S+ && /, "").replace(/(^|\s)npx estate-etl /, "$1estate-etl ")
  return [line]
}

describe("every recipe of README and docs/", () => {
  let sandbox: Awaited<ReturnType<typeof startTestSandbox>>
  let dir: string
  beforeAll(async () => {
    sandbox = await startTestSandbox({ world: { properties: 600 } })
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "estate-recipes-"))
    fs.mkdirSync(path.join(dir, "config"))
    const production = JSON.parse(fs.readFileSync(path.join(ROOT, "config/production.example.json"), "utf8"))
    fs.writeFileSync(path.join(dir, "config/production.json"), JSON.stringify(production))
    const local = JSON.parse(fs.readFileSync(path.join(ROOT, "config/sandbox.json"), "utf8"))
    delete local.$schema
    fs.writeFileSync(
      path.join(dir, "config/sandbox.json"),
      JSON.stringify({ ...local, service: { target: "remote" }, sandbox: { ...local.sandbox, properties: 600 } })
    )
    fs.mkdirSync(path.join(dir, "config/adhoc"), { recursive: true })
    fs.copyFileSync(path.join(ROOT, "config/adhoc/resolve-inputs.csv"), path.join(dir, "config/adhoc/resolve-inputs.csv"))
  })
  afterAll(async () => {
    await sandbox.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("each recipe runs here, as written, or is named with the test that runs it", async () => {
    const recipes = DOCS.flatMap(recipesOf)
    expect(recipes.length).toBeGreaterThan(30)
    const env = {
      ...sandboxEnv(),
      SVC_PLATFORM_URL: sandbox.platformUrl,
      SVC_API_URL: sandbox.apiUrl,
      SANDBOX_PLATFORM_PORT: "0",
      SANDBOX_API_PORT: "0"
    }
    const ran: Array<string> = []
    for (const recipe of recipes) {
      const commands = commandsOf(recipe)
      if (!Array.isArray(commands)) {
        const covering = (commands as { by: string }).by.split(" ")[0]!.replace("*", "")
        // the named test exists (a glob names a family of files)
        expect(
          fs.readdirSync(path.join(ROOT, path.dirname(covering))).some((f) => f.startsWith(path.basename(covering).split(".")[0]!)),
          covering
        ).toBe(true)
        continue
      }
      for (const command of commands as ReadonlyArray<string>) {
        // `init` makes its folder a repository of its own: it runs in a fresh one
        const cwd = / init\b/.test(command) ? fs.mkdtempSync(path.join(dir, "init-")) : dir
        const r = await runExample(command, cwd, env)
        const context = `${recipe.file}: ${command}\n${r.output.slice(-2000)}\nran before:\n${ran.join("\n")}`
        if (SERVING.includes(command.split(/\s+/)[1]!)) expect(r.code, context).toBe("serving")
        else expect(ENDS_WITH[command] ?? [0], context).toContain(r.code)
        ran.push(`${r.code}  ${command}`)
      }
    }
    expect(ran.length).toBeGreaterThan(25)
  }, 600_000)
})
