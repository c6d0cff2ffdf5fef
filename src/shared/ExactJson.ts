/**
 * JSON with exact integers. `JSON.parse` reads every number as a double, so an integer beyond
 * 2^53 (an id, say) loses its last digits before anything can check it. `parseJson` reads such
 * integers as `bigint` instead, every digit kept; `stringifyJson` writes them back as the same
 * digits. Everything else is what `JSON.parse` / `JSON.stringify` do.
 *
 * Fast path: a text without a run of 16 digits that starts a number (not after a digit or the
 * decimal point: a fraction's digits never make a long integer) holds no such integer and goes to
 * `JSON.parse` as is. Otherwise its number tokens are found by a scan that steps over strings, the
 * long integers are replaced by marked strings, and the parsed value gets its `bigint`s back.
 * (Measured: sourcing pages carry coordinates with 16 decimals, and the plain `\d{16}` sent every
 * page to the scan: ~3 us a record of a 207,071-property pull.)
 */

/** 16 digits in a row not after a digit or `.`: the shortest integer that can be beyond 2^53 (9007199254740992). */
const LONG_DIGITS = /(?<![\d.])\d{16}/
const MARK = "\u0000bigint:"
const MAX = BigInt(Number.MAX_SAFE_INTEGER)

const isDigit = (c: number) => c >= 48 && c <= 57

/** The text with each integer token beyond 2^53 (outside strings) replaced by a marked string; undefined if none. */
const markLongIntegers = (text: string): string | undefined => {
  let out: Array<string> | undefined
  let last = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // a string: step to its closing quote
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 92) i++
        else if (d === 34) break
      }
      continue
    }
    if (c !== 45 && !isDigit(c)) continue
    let j = c === 45 ? i + 1 : i
    while (j < text.length && isDigit(text.charCodeAt(j))) j++
    const next = text.charCodeAt(j)
    const integer = next !== 46 && next !== 101 && next !== 69 // no fraction, no exponent
    const token = text.slice(i, j)
    if (integer && token.length >= 16) {
      const n = BigInt(token)
      if (n > MAX || n < -MAX) {
        out ??= []
        out.push(text.slice(last, i), JSON.stringify(MARK + token))
        last = j
      }
    }
    // a number's fraction or exponent is skipped with it
    while (j < text.length && /[0-9.eE+-]/.test(text[j]!)) j++
    i = j - 1
  }
  if (out === undefined) return undefined
  out.push(text.slice(last))
  return out.join("")
}

const restore = (v: unknown): unknown => {
  if (typeof v === "string") return v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = restore(v[i])
    return v
  }
  if (typeof v === "object" && v !== null) {
    const o = v as Record<string, unknown>
    for (const k in o) o[k] = restore(o[k])
  }
  return v
}

/** `JSON.parse`, with integers beyond 2^53 as `bigint` (every digit kept). Throws as `JSON.parse` does. */
export const parseJson = (text: string): unknown => {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text)
  const marked = markLongIntegers(text)
  return marked === undefined ? JSON.parse(text) : restore(JSON.parse(marked))
}

/**
 * `JSON.stringify` that writes a `bigint` as its digits (as they came), never throwing on one. The
 * plain call first (it throws on a `bigint`): no replacer on the hot path.
 */
export const stringifyJson = (value: unknown): string => {
  try {
    return JSON.stringify(value)
  } catch (e) {
    if (!(e instanceof TypeError)) throw e
  }
  let big = false
  const text = JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v !== "bigint") return v
    big = true
    return MARK + v.toString()
  })
  if (!big || text === undefined) return text
  return text.replace(/"\\u0000bigint:(-?\d+)"/g, "$1")
}

/**
 * JSON with object keys sorted (members that are `undefined` left out), `bigint`s as digits: one
 * text for values that mean the same, to compare or hash them (parameters on resume, requests).
 */
export const canonicalJson = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonicalJson).join(",")}]`
    : typeof v === "object" && v !== null
      ? `{${Object.keys(v)
          .sort()
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
          .join(",")}}`
      : typeof v === "bigint"
        ? v.toString()
        : (JSON.stringify(v) ?? "undefined")
