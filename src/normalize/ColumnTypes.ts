/**
 * Column types as DuckDB type text: scalars (`VARCHAR`, `BIGINT`, `DECIMAL(18,2)`,
 * `TIMESTAMPTZ`, `JSON`, ...) and nested types (`VARCHAR[]`, `STRUCT(name VARCHAR, url
 * VARCHAR)[]`, `MAP(VARCHAR, JSON)`). A spec names its column types in this text; this module
 * parses it once per column and says how a value is staged and cast on landing.
 *
 * Nested values travel as JSON text (what the normalizer already produced for JSON columns) and
 * are shaped by DuckDB's `json_transform`: members the type does not name are dropped, missing
 * members are NULL. Open objects (keys not known in advance) are `MAP(VARCHAR, ...)`; open
 * payloads stay `JSON`.
 */

export type ParsedType =
  | { readonly kind: "scalar"; readonly name: ScalarName }
  | { readonly kind: "decimal"; readonly precision: number; readonly scale: number }
  | { readonly kind: "list"; readonly of: ParsedType }
  | { readonly kind: "struct"; readonly fields: ReadonlyArray<readonly [string, ParsedType]> }
  | { readonly kind: "map"; readonly key: ParsedType; readonly value: ParsedType }

export const SCALAR_TYPES = ["VARCHAR", "BIGINT", "INTEGER", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP", "TIMESTAMPTZ", "JSON"] as const
export type ScalarName = (typeof SCALAR_TYPES)[number]

/** A column type this toolkit does not know (the message names what is allowed). */
export class ColumnTypeError extends Error {}

/** Why a column type is not one the loader knows (the parser's message), or undefined. */
export const columnTypeProblem = (type: string): string | undefined => {
  try {
    parseColumnType(type)
    return undefined
  } catch (e) {
    if (e instanceof ColumnTypeError) return e.message
    throw e
  }
}

const ALLOWED = `${SCALAR_TYPES.join(", ")}, DECIMAL(p,s), T[], STRUCT(name T, ...), MAP(K, V)`

/** Parses DuckDB type text; throws `ColumnTypeError` on anything else. */
export const parseColumnType = (text: string): ParsedType => {
  let i = 0
  const fail = (why: string): never => {
    throw new ColumnTypeError(`type ${JSON.stringify(text)}: ${why} (allowed: ${ALLOWED})`)
  }
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++
  }
  const word = () => {
    ws()
    if (text[i] === '"') {
      const end = text.indexOf('"', i + 1)
      if (end < 0) fail("unclosed quote")
      const w = text.slice(i + 1, end)
      i = end + 1
      return w
    }
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i))
    if (!m) return fail(`a name expected at ${i}`)
    i += m[0].length
    return m[0]
  }
  const expect = (ch: string) => {
    ws()
    if (text[i] !== ch) fail(`"${ch}" expected at ${i}`)
    i++
  }
  const int = () => {
    ws()
    const m = /^\d+/.exec(text.slice(i))
    if (!m) return fail(`a number expected at ${i}`)
    i += m[0].length
    return Number(m[0])
  }
  const type = (): ParsedType => {
    const name = word().toUpperCase()
    let t: ParsedType
    if (name === "STRUCT") {
      expect("(")
      const fields: Array<readonly [string, ParsedType]> = []
      for (;;) {
        const f = word()
        fields.push([f, type()])
        ws()
        if (text[i] === ",") i++
        else break
      }
      expect(")")
      t = { kind: "struct", fields }
    } else if (name === "MAP") {
      expect("(")
      const key = type()
      expect(",")
      const value = type()
      expect(")")
      t = { kind: "map", key, value }
    } else if (name === "DECIMAL") {
      expect("(")
      const precision = int()
      expect(",")
      const scale = int()
      expect(")")
      if (precision < 1 || precision > 38 || scale > precision) fail("DECIMAL(p,s) needs 1 <= p <= 38 and s <= p")
      t = { kind: "decimal", precision, scale }
    } else if ((SCALAR_TYPES as ReadonlyArray<string>).includes(name)) {
      t = { kind: "scalar", name: name as ScalarName }
    } else {
      return fail(`unknown type ${name}`)
    }
    for (;;) {
      ws()
      if (text.startsWith("[]", i)) {
        i += 2
        t = { kind: "list", of: t }
      } else return t
    }
  }
  const t = type()
  ws()
  if (i !== text.length) fail(`unexpected text at ${i}`)
  return t
}

const quoted = (name: string) => (/^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`)

/** The type as DuckDB text again (struct member names quoted when needed). */
export const typeText = (t: ParsedType): string => {
  switch (t.kind) {
    case "scalar":
      return t.name
    case "decimal":
      return `DECIMAL(${t.precision},${t.scale})`
    case "list":
      return `${typeText(t.of)}[]`
    case "struct":
      return `STRUCT(${t.fields.map(([n, f]) => `${quoted(n)} ${typeText(f)}`).join(", ")})`
    case "map":
      return `MAP(${typeText(t.key)}, ${typeText(t.value)})`
  }
}

export const isNested = (t: ParsedType) => t.kind === "list" || t.kind === "struct" || t.kind === "map"

/** The `json_transform` structure of a type (a JSON value: type names, arrays, objects). */
export const jsonStructure = (t: ParsedType): unknown => {
  switch (t.kind) {
    case "list":
      return [jsonStructure(t.of)]
    case "struct":
      return Object.fromEntries(t.fields.map(([n, f]) => [n, jsonStructure(f)]))
    default:
      return typeText(t)
  }
}

/**
 * How a value of the type is staged before landing: the appender writes these five kinds;
 * text kinds (dates, timestamps, JSON, nested values as JSON) are cast by DuckDB on landing,
 * DECIMAL is staged as DOUBLE and cast.
 */
export type StageType = "VARCHAR" | "BIGINT" | "INTEGER" | "DOUBLE" | "BOOLEAN"

export const stageTypeOf = (t: ParsedType): StageType => {
  if (t.kind === "decimal") return "DOUBLE"
  if (t.kind !== "scalar") return "VARCHAR"
  switch (t.name) {
    case "BIGINT":
    case "INTEGER":
    case "DOUBLE":
    case "BOOLEAN":
      return t.name
    default:
      return "VARCHAR"
  }
}

const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`

/** The SQL expression turning the staged value `col` (already quoted) into the column's type. */
export const landingCast = (t: ParsedType, col: string): string => {
  if (isNested(t)) return `CAST(json_transform(${col}, ${sqlString(JSON.stringify(jsonStructure(t)))}) AS ${typeText(t)})`
  if (t.kind === "decimal") return `CAST(${col} AS ${typeText(t)})`
  switch (t.name) {
    case "DATE":
      return `CAST(${col} AS DATE)`
    // an ISO string with an offset lands as the same instant; without one it is read as UTC
    case "TIMESTAMP":
      return `CAST(CAST(${col} AS TIMESTAMPTZ) AS TIMESTAMP)`
    case "TIMESTAMPTZ":
      return `CAST(${col} AS TIMESTAMPTZ)`
    case "JSON":
      return `CAST(${col} AS JSON)`
    default:
      return col
  }
}
