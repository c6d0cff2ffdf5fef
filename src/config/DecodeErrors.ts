/**
 * A schema decode error as one line a person can act on, shared by the settings file and the
 * pipelines' parameters:
 * - an unknown key says so and suggests the closest allowed one
 *   (`unknown key; did you mean "warehouse"?`);
 * - a value outside an enumeration lists the allowed values and suggests the closest one
 *   (`expected one of sandbox, remote; did you mean "remote"?`);
 * - the value of a credential-looking key (`apiKey`, `refreshToken`...) never shows, at any depth:
 *   the issue tree's values are redacted before any message is built, and the line is scrubbed
 *   of every credential value of the input once more;
 * - an optional field's "Expected undefined" says nothing to a person and is left out.
 * Other messages are Effect Schema's own (`ArrayFormatter`), built from the redacted values.
 */
import { Effect, Option, ParseResult, SchemaAST as AST } from "effect"
import { isCredentialKey, REDACTED, redactValue, scrub } from "./Credentials.js"
import { closest, suggestion } from "./Suggest.js"

type Issue = ParseResult.ParseIssue

interface Entry {
  readonly path: ReadonlyArray<string>
  readonly message: string
  /** The failed `undefined` member of an optional field's union. */
  readonly undefinedMember?: boolean
  /** A failed literal (or literals merged from a union), kept to merge with its union's others. */
  readonly literals?: { readonly values: ReadonlyArray<AST.LiteralValue>; readonly actual: unknown }
}

// --- redaction of the issue tree ---------------------------------------------------------------

const pathKeys = (path: ParseResult.Path): ReadonlyArray<PropertyKey> => (Array.isArray(path) ? path : [path as PropertyKey])

/** The tree with every `actual` redacted: wholly below a credential-looking key, else member by member. */
export const redactIssue = (issue: Issue, secret = false): Issue => {
  const r = (v: unknown) => (secret ? REDACTED : redactValue(v))
  switch (issue._tag) {
    case "Pointer": {
      const below = secret || pathKeys(issue.path).some(isCredentialKey)
      return new ParseResult.Pointer(issue.path, r(issue.actual), redactIssue(issue.issue, below))
    }
    case "Type":
      return new ParseResult.Type(issue.ast, r(issue.actual), issue.message)
    case "Unexpected":
      return new ParseResult.Unexpected(r(issue.actual), issue.message)
    case "Missing":
      return new ParseResult.Missing(issue.ast, issue.message)
    case "Forbidden":
      return new ParseResult.Forbidden(issue.ast, r(issue.actual), issue.message)
    case "Composite": {
      const issues = Array.isArray(issue.issues)
        ? (issue.issues.map((i) => redactIssue(i, secret)) as unknown as readonly [Issue, ...Array<Issue>])
        : redactIssue(issue.issues as Issue, secret)
      return new ParseResult.Composite(issue.ast, r(issue.actual), issues, issue.output === undefined ? undefined : r(issue.output))
    }
    case "Refinement":
      return new ParseResult.Refinement(issue.ast, r(issue.actual), issue.kind, redactIssue(issue.issue, secret))
    case "Transformation":
      return new ParseResult.Transformation(issue.ast, r(issue.actual), issue.kind, redactIssue(issue.issue, secret))
  }
}

// --- messages ----------------------------------------------------------------------------------

const astOf = (issue: Issue): AST.AST | undefined => ("ast" in issue ? (issue.ast as AST.AST) : undefined)

/** The message annotation of the issue's schema, as `ArrayFormatter` reads it. */
const ownMessage = (issue: Issue): { readonly message: string; readonly override: boolean } | undefined => {
  const ast = astOf(issue)
  if (ast === undefined) return undefined
  return Option.match(AST.getMessageAnnotation(ast), {
    onNone: () => undefined,
    onSome: (annotation) => {
      const m = annotation(issue)
      if (typeof m === "string") return { message: m, override: false }
      if (Effect.isEffect(m)) return { message: Effect.runSync(m), override: false }
      return { message: typeof m.message === "string" ? m.message : Effect.runSync(m.message), override: m.override ?? false }
    }
  })
}

/** The message an annotation gives this node, with `ArrayFormatter`'s rules for inner messages. */
const annotatedMessage = (issue: Issue): string | undefined => {
  const current = ownMessage(issue)
  if (current === undefined) return undefined
  const inner =
    !current.override &&
    (issue._tag === "Composite" ||
      (issue._tag === "Refinement" && issue.kind === "From") ||
      (issue._tag === "Transformation" && issue.kind !== "Transformation"))
  if (!inner) return current.message
  return issue._tag === "Refinement" || issue._tag === "Transformation" ? annotatedMessage(issue.issue) : undefined
}

/** Effect Schema's own messages for a (redacted) issue, under `path`. */
const formatted = (issue: Issue, path: ReadonlyArray<string>): Array<Entry> =>
  ParseResult.ArrayFormatter.formatIssueSync(issue).map((i) => ({ path: [...path, ...i.path.map(String)], message: i.message }))

/** The names listed in Effect's `is unexpected, expected: "a" | "b"` message. */
const expectedKeys = (message: string | undefined): Array<string> =>
  (message?.match(/"(?:[^"\\]|\\.)*"/g) ?? []).map((q) => JSON.parse(q) as string)

const showLiteral = (v: AST.LiteralValue) => (typeof v === "string" ? v : String(v))

const enumMessage = (values: ReadonlyArray<AST.LiteralValue>, actual: unknown): string => {
  const allowed = [...new Set(values)].map(showLiteral)
  const head = allowed.length === 1 ? `expected ${safeShow(values[0])}` : `expected one of ${allowed.join(", ")}`
  const best = typeof actual === "string" && actual !== REDACTED ? closest(actual, allowed) : undefined
  if (best !== undefined) return `${head}; did you mean ${JSON.stringify(best)}?`
  return actual === undefined ? head : `${head} (got ${safeShow(actual)})`
}

const safeShow = (v: unknown): string => {
  try {
    const s = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v))
    return s.length > 80 ? `${s.slice(0, 77)}...` : s
  } catch {
    return String(v)
  }
}

/** `must be one of a, b (got "x")` (the service schemas' `oneOf`): add the closest value. */
const withOneOfSuggestion = (message: string): string => {
  const m = /^must be one of (.+) \(got ("(?:[^"\\]|\\.)*")\)$/.exec(message)
  if (!m) return message
  const got = JSON.parse(m[2]!) as string
  const best = got === REDACTED ? undefined : closest(got, m[1]!.split(", "))
  return best === undefined ? message : `${message}; did you mean ${JSON.stringify(best)}?`
}

const walk = (issue: Issue, path: ReadonlyArray<string>): Array<Entry> => {
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...pathKeys(issue.path).map(String)])
    case "Unexpected": {
      const allowed = expectedKeys(issue.message)
      const key = path[path.length - 1]
      if (allowed.length === 0 || key === undefined) return formatted(issue, path)
      return [{ path, message: `unknown key${suggestion(key, allowed)}` }]
    }
    case "Missing":
    case "Forbidden":
      return formatted(issue, path)
    case "Type": {
      if (issue.message !== undefined || ownMessage(issue) !== undefined) return formatted(issue, path)
      if (issue.ast._tag === "UndefinedKeyword") return formatted(issue, path).map((e) => ({ ...e, undefinedMember: true }))
      if (issue.ast._tag === "Literal") {
        const values = [issue.ast.literal]
        return [{ path, message: enumMessage(values, issue.actual), literals: { values, actual: issue.actual } }]
      }
      return formatted(issue, path)
    }
    case "Composite": {
      const own = annotatedMessage(issue)
      if (own !== undefined) return [{ path, message: own }]
      const children = (Array.isArray(issue.issues) ? issue.issues : [issue.issues as Issue]).flatMap((i) => walk(i, path))
      if (issue.ast._tag !== "Union") return children
      // an optional field's `undefined` member, and the members of a literal union, at this path
      const here = (e: Entry) => e.path.length === path.length
      const kept = children.some((e) => !(here(e) && e.undefinedMember))
        ? children.filter((e) => !(here(e) && e.undefinedMember))
        : children
      const literals = kept.filter((e) => here(e) && e.literals !== undefined)
      if (literals.length < 2) return kept
      const values = literals.flatMap((e) => e.literals!.values)
      const actual = literals[0]!.literals!.actual
      const merged: Entry = { path, message: enumMessage(values, actual), literals: { values, actual } }
      return [merged, ...kept.filter((e) => !literals.includes(e))]
    }
    case "Refinement": {
      const own = annotatedMessage(issue)
      if (own !== undefined) return [{ path, message: own }]
      return issue.kind === "From" ? walk(issue.issue, path) : formatted(issue, path)
    }
    case "Transformation": {
      const own = annotatedMessage(issue)
      if (own !== undefined) return [{ path, message: own }]
      return issue.kind === "Transformation" ? formatted(issue, path) : walk(issue.issue, path)
    }
  }
}

/** The issues of a decode error, one per field (the first), values redacted. */
export const describeIssues = (error: ParseResult.ParseError): Array<{ readonly path: Array<string>; readonly message: string }> => {
  const input = error.issue.actual
  const byPath = new Map<string, { path: Array<string>; message: string }>()
  for (const e of walk(redactIssue(error.issue), [])) {
    const key = e.path.join(".")
    if (!byPath.has(key)) byPath.set(key, { path: [...e.path], message: scrub(withOneOfSuggestion(e.message), input).replace(/\s+/g, " ") })
  }
  return [...byPath.values()]
}

/**
 * Schema issues as one line: the first field's message (its path goes in the error's `field`),
 * then `path: message` for each further field.
 */
export const issuesLine = (error: ParseResult.ParseError): { readonly path: Array<string>; readonly line: string } => {
  const issues = describeIssues(error)
  const line = issues.map((i, n) => (n === 0 ? i.message : `${i.path.join(".")}: ${i.message}`)).join("; ")
  return { path: issues[0]?.path ?? [], line: scrub(line, error.issue.actual) }
}
