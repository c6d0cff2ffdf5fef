/**
 * sourcing-resolve: resolves portal links, agency references and listing ids to Property
 * Sourcing properties (`POST /v1/property-sourcing/properties/resolve`, exactly one of `url`,
 * `reference`, `listing_id` per call), one call per distinct input of a CSV file. Lands
 * `sourcing_resolutions`: the input (kind, value), how it matched, the property's `prop_` id and
 * the property detail columns.
 *
 * The CSV file (UTF-8, comma-separated, `"` quoting, header row required) has either
 * - a `kind,value` header, then one input a row (`kind` is `url`, `reference` or `listing_id`); or
 * - a header naming one or more of the columns `url`, `reference`, `listing_id`, each non-empty
 *   cell being one input of its column's kind.
 * Every input is checked (an http(s) link, a non-empty reference, a positive integer listing id)
 * with the parameters, before any request or any change to the warehouse; a bad file is bad
 * input (exit 2) naming the line.
 *
 * Decided: an input that matches nothing (404 `not_found`, not charged) lands a `_missing` row
 * (the fan-out's missing-key mechanism) and a row with `property_id` and `matched_by` null, not a
 * failed run; it is asked again on the next run.
 */
import { Effect, Either, Schema } from "effect"
import * as fs from "node:fs"
import { single } from "../src/extract/Pagers.js"
import { csvRows } from "../src/extract/Csv.js"
import { fetchedOf } from "../src/extract/Responses.js"
import type { Fetched } from "../src/extract/Source.js"
import { fanOut } from "../src/extract/Sources.js"
import { flatTable } from "../src/normalize/Flatten.js"
import { columnsVia, sourcingDetailColumns } from "../src/normalize/records/SourcingRows.js"
import { extra } from "../src/normalize/Values.js"
import { definePipeline, type PageContext } from "../src/pipeline/Pipeline.js"
import { InvalidInput } from "../src/pipeline/RunError.js"
import { PlatformClient } from "../src/service/PlatformClient.js"
import type { ServiceError } from "../src/service/ServiceError.js"
import { SourcingPropertyDetail } from "../src/service/schema/Sourcing.js"

const Params = Schema.Struct({
  /**
   * Path of the CSV file of inputs (format above). The file is read and every line checked as the
   * parameters are, so a bad file is bad input before anything is sent or written (exit 2).
   */
  file: Schema.String.pipe(
    Schema.minLength(1),
    Schema.filter((file) => Either.match(inputsOf(file), { onLeft: (detail) => detail, onRight: () => true }))
  ),
  /** Calls in flight at once. Default 4. */
  concurrency: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 32)), { default: () => 4 })
})
type Params = typeof Params.Type

export const KINDS = ["url", "reference", "listing_id"] as const
export type Kind = (typeof KINDS)[number]
export interface Input {
  readonly kind: Kind
  readonly value: string
}

const checkValue = (kind: Kind, value: string): string | undefined => {
  if (kind === "url") return /^https?:\/\/\S+$/.test(value) ? undefined : "a url must be an http(s) link"
  if (kind === "listing_id")
    return /^[1-9]\d{0,15}$/.test(value) && Number.isSafeInteger(Number(value)) ? undefined : "a listing_id must be a positive integer"
  return value === "" ? "a reference must not be empty" : undefined
}

/** The distinct inputs of a CSV file, in file order; `Left`: the first problem, naming the file and the line. */
const inputsOf = (file: string): Either.Either<ReadonlyArray<Input>, string> => {
  const bad = (detail: string) => Either.left(`${file}: ${detail}`)
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch {
    return bad("cannot read the file")
  }
  const [header, ...rows] = csvRows(text)
  if (!header) return bad("the file is empty (a header row is required)")
  const names = header.map((h) => h.trim().toLowerCase())
  const pairs = names.length === 2 && names[0] === "kind" && names[1] === "value"
  if (!pairs && (names.length === 0 || !names.every((n) => (KINDS as ReadonlyArray<string>).includes(n)))) {
    return bad(`the header must be "kind,value" or name columns among ${KINDS.join(", ")} (got ${names.join(",")})`)
  }
  const seen = new Set<string>()
  const out: Array<Input> = []
  for (const [n, row] of rows.entries()) {
    const cells = pairs
      ? [[row[0]?.trim().toLowerCase() ?? "", row[1]?.trim() ?? ""] as const]
      : names.map((k, i) => [k, row[i]?.trim() ?? ""] as const)
    for (const [kind, value] of cells) {
      if (!pairs && value === "") continue
      if (!(KINDS as ReadonlyArray<string>).includes(kind))
        return bad(`line ${n + 2}: kind must be one of ${KINDS.join(", ")} (got ${JSON.stringify(kind)})`)
      const problem = checkValue(kind as Kind, value)
      if (problem) return bad(`line ${n + 2}: ${problem} (got ${JSON.stringify(value.slice(0, 60))})`)
      const key = `${kind}:${value}`
      if (!seen.has(key)) (seen.add(key), out.push({ kind: kind as Kind, value }))
    }
  }
  return Either.right(out)
}

/** The distinct inputs of a CSV file, in file order; any bad line fails naming it. */
export const readInputs = (file: string): Effect.Effect<ReadonlyArray<Input>, InvalidInput> =>
  Either.match(inputsOf(file), {
    onLeft: (detail) => Effect.fail(new InvalidInput({ field: "sourcing-resolve.file", detail })),
    onRight: Effect.succeed
  })

/** One resolution: the input and what it matched (`property` null when nothing matched). */
const Resolution = Schema.Struct({
  input_kind: Schema.String,
  input_value: Schema.String,
  matched_by: Schema.NullOr(Schema.String),
  property: Schema.NullOr(SourcingPropertyDetail)
})
type Resolution = typeof Resolution.Type

const knownDetail = new Set(Object.keys(SourcingPropertyDetail.fields))
const resolutions = flatTable.of<Resolution, PageContext>()(
  "sourcing_resolutions",
  {
    input_kind: "VARCHAR",
    input_value: "VARCHAR",
    matched_by: "VARCHAR",
    ...columnsVia(sourcingDetailColumns, (r: Resolution) => r.property),
    /** The `prop_` id of the match, null when nothing matched. */
    property_id: ["VARCHAR", (r) => r.property?.id],
    extracted_at: ["TIMESTAMPTZ", (_r, c) => c.extractedAt],
    extra: ["JSON", (r) => (r.property ? extra(r.property, knownDetail) : null)]
  },
  { primaryKey: ["input_kind", "input_value"], disposition: "merge" }
)

const resolve = (input: Input): Effect.Effect<Fetched<unknown>, ServiceError, PlatformClient> => {
  const body = input.kind === "listing_id" ? { listing_id: Number(input.value) } : { [input.kind]: input.value }
  const base = { input_kind: input.kind, input_value: input.value }
  return Effect.flatMap(PlatformClient, (c) => c.sourcingResolve(body)).pipe(
    Effect.map((r) => fetchedOf(r, [{ ...base, matched_by: r.body.matched_by ?? null, property: r.body.property ?? null }]))
  )
}

export default definePipeline({
  name: "sourcing-resolve",
  description: "Resolves portal links, agency references and listing ids (a CSV file) to Property Sourcing properties",
  host: "platform",
  notReloadable: "each record carries the input it resolves (kind and value), which the response does not",
  params: Params,
  source: fanOut({
    keys: (p: Params) => readInputs(p.file),
    key: (input) => `${input.kind}:${input.value}`,
    concurrency: (p) => p.concurrency,
    missing: (input): ReadonlyArray<unknown> => [{ input_kind: input.kind, input_value: input.value, matched_by: null, property: null }],
    pager: (input) => single(() => resolve(input))
  }),
  cost: {
    operation: "sourcing_resolve",
    estimate: (p) =>
      Effect.map(readInputs(p.file), (inputs) => ({
        requests: inputs.length,
        records: inputs.length,
        exact: true,
        note: "inputs that match nothing are not charged"
      }))
  },
  tables: [resolutions.spec],
  records: {
    table: resolutions.spec.name,
    schema: Resolution,
    toRows: (r, ctx) => ({ [resolutions.spec.name]: [resolutions.row(r, ctx)] })
  },
  shardable: true
})
