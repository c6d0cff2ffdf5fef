/**
 * Request validation before any call: `validateRequest` decodes a request body with its schema
 * and, on failure, returns a `RequestValidationError` whose message has ONE line per problem:
 *
 *   comparables_count: must be between 1 and 50 (got 60)
 *   custom_location_boundary.location_ids: 1 to 10 items allowed (got 11)
 *   types: property types must come from one group (apartment, house, ...); got apartment, villa
 *
 * Unknown keys of a request are kept and sent on (the server decides about them).
 */
import { Data, Either, ParseResult, Schema } from "effect"

/** One problem of a request: the field path (`a.b[0].c`, empty for the whole body) and what is allowed. */
export interface RequestIssue {
  readonly field: string
  readonly message: string
}

/** A request refused locally, before any call. `field` is the first problem's field. */
export class RequestValidationError extends Data.TaggedError("RequestValidationError")<{
  readonly reason: "InvalidRequest"
  readonly field: string
  readonly message: string
  readonly issues: ReadonlyArray<RequestIssue>
}> {}

const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, k) => (typeof k === "number" ? `${acc}[${k}]` : acc === "" ? String(k) : `${acc}.${String(k)}`), "")

const kind = (expected: string): string => {
  if (expected === "number") return "a number"
  if (expected === "string") return "a string"
  if (expected === "boolean") return "true or false"
  if (expected === "null") return "null"
  if (expected.startsWith("{")) return "an object"
  if (expected.startsWith("ReadonlyArray<") || expected.startsWith("readonly [")) return "a list"
  return expected
}

const EXPECTED = /^Expected (.+), actual ([\s\S]+)$/

/** The problems of a parse error, one per field, phrased for people. */
export const validationIssues = (error: ParseResult.ParseError): ReadonlyArray<RequestIssue> => {
  const raw = ParseResult.ArrayFormatter.formatErrorSync(error).map((i) => ({ ...i, field: formatPath(i.path) }))
  // `NullOr(x)` and `optional(x)` failures also report "Expected null" / "Expected undefined":
  // drop those when another issue explains the field or something inside it.
  const NOTHING = /^Expected (null|undefined), actual/
  const explained = (field: string) =>
    raw.some(
      (j) =>
        !NOTHING.test(j.message) &&
        (j.field === field || field === "" || j.field.startsWith(`${field}.`) || j.field.startsWith(`${field}[`))
    )
  const byField = new Map<string, { literals: Array<string>; actual?: string; messages: Array<string> }>()
  for (const issue of raw) {
    if (NOTHING.test(issue.message) && explained(issue.field)) continue
    const entry = byField.get(issue.field) ?? { literals: [], messages: [] }
    byField.set(issue.field, entry)
    const m = EXPECTED.exec(issue.message)
    if (issue._tag === "Missing") entry.messages.push("is required")
    else if (issue._tag === "Unexpected") entry.messages.push("is not allowed")
    else if (m !== null && /^".*"$/.test(m[1]!)) {
      entry.literals.push(m[1]!.slice(1, -1))
      entry.actual = m[2]!
    } else if (m !== null) entry.messages.push(`must be ${kind(m[1]!)} (got ${m[2]!})`)
    else entry.messages.push(issue.message)
  }
  const out: Array<RequestIssue> = []
  for (const [field, e] of byField) {
    if (e.literals.length > 0) out.push({ field, message: `must be one of ${e.literals.join(", ")} (got ${e.actual})` })
    for (const message of new Set(e.messages)) out.push({ field, message })
  }
  return out
}

/** One line per problem: `field.path: what is allowed (got what was sent)`. */
export const formatValidationError = (error: ParseResult.ParseError): string =>
  validationIssues(error)
    .map((i) => (i.field === "" ? i.message : `${i.field}: ${i.message}`))
    .join("\n")

/**
 * Validates a request body. All problems are reported, not only the first; unknown keys pass
 * through to the decoded value.
 */
export const validateRequest = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): Either.Either<A, RequestValidationError> =>
  Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "preserve" })(input).pipe(
    Either.mapLeft((error) => {
      const issues = validationIssues(error)
      return new RequestValidationError({
        reason: "InvalidRequest",
        field: issues[0]?.field ?? "",
        message: formatValidationError(error),
        issues
      })
    })
  )
