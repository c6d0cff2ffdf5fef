/**
 * Field checks of request bodies, collecting 422 issues the way the real host (pydantic v2 behind
 * FastAPI, judging by the spec's `{loc, msg, type, input, ctx}` items) reports them: every issue of
 * the body at once, `loc` starting with `"body"` or `"query"`.
 *
 * Assumed (the spec does not say which rule gives 400 and which 422): a violation of one field's
 * own schema (missing, wrong type, out of range, not in the enumeration, list too short or long,
 * bad date) is 422; a rule across fields (exactly one of, not together, one type group, required
 * because of another field, polygon closed, country-only) is 400 `{message, errors, details}`.
 * Both are collected in one pass; the 400 rules are reported only for a body with no 422 issue.
 */
import { Effect } from "effect"
import { type TokenHostError, type ValidationIssue, badRequest, unprocessable } from "./Errors.js"

export type Loc = ReadonlyArray<string | number>
export type Json = Record<string, unknown>

export const isObject = (u: unknown): u is Json => typeof u === "object" && u !== null && !Array.isArray(u)

const quoteList = (values: ReadonlyArray<string>) =>
  values.length === 1
    ? `'${values[0]}'`
    : `${values
        .slice(0, -1)
        .map((v) => `'${v}'`)
        .join(", ")} or '${values[values.length - 1]}'`

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/

/** Parses `YYYY-MM-DD` to UTC midnight milliseconds, or undefined. */
export const parseDate = (s: string): number | undefined => {
  if (!DATE_RE.test(s)) return undefined
  const ms = Date.parse(`${s}T00:00:00Z`)
  return Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== s ? undefined : ms
}

export interface RangeOpts {
  readonly ge?: number
  readonly le?: number
  readonly required?: boolean
  readonly nullable?: boolean
}

export class Checker {
  readonly issues: Array<ValidationIssue> = []
  /** Cross-field rule violations (400). */
  readonly rules: Array<string> = []

  add(loc: Loc, type: string, msg: string, input: unknown, ctx: Record<string, unknown> = {}) {
    this.issues.push({ loc, msg, type, input, ctx })
  }

  rule(message: string) {
    this.rules.push(message)
  }

  /** The body as an object; `whenAbsent` stands for a missing body; anything else is a `model_attributes_type` issue (undefined). */
  body(raw: unknown, whenAbsent?: Json): Json | undefined {
    if (raw === undefined && whenAbsent !== undefined) return whenAbsent
    if (isObject(raw)) return raw
    this.add(["body"], "model_attributes_type", "Input should be a valid dictionary or object to extract fields from", raw)
    return undefined
  }

  /** Undefined when absent (and reports `missing` when required); null passes through when nullable. */
  private present(obj: Json | undefined, key: string, loc: Loc, required: boolean, nullable: boolean) {
    const v = obj?.[key]
    if (v === undefined || (v === null && !nullable)) {
      if (required) this.add([...loc, key], "missing", "Field required", obj ?? null)
      else if (v === null) this.add([...loc, key], "null_not_allowed", "Input should not be None", null)
      return { has: false as const }
    }
    return { has: true as const, v }
  }

  object(obj: Json | undefined, key: string, loc: Loc, opts: { required?: boolean; nullable?: boolean } = {}): Json | undefined {
    const p = this.present(obj, key, loc, opts.required ?? false, opts.nullable ?? false)
    if (!p.has || p.v === null) return undefined
    if (!isObject(p.v)) {
      this.add([...loc, key], "dict_type", "Input should be a valid dictionary", p.v)
      return undefined
    }
    return p.v
  }

  private numeric(obj: Json | undefined, key: string, loc: Loc, opts: RangeOpts, integer: boolean): number | null | undefined {
    const p = this.present(obj, key, loc, opts.required ?? false, opts.nullable ?? false)
    if (!p.has) return undefined
    if (p.v === null) return null
    return this.numericValue(p.v, [...loc, key], opts, integer)
  }

  numericValue(v: unknown, at: Loc, opts: RangeOpts, integer: boolean): number | undefined {
    if (typeof v !== "number" || !Number.isFinite(v)) {
      this.add(at, integer ? "int_type" : "float_type", `Input should be a valid ${integer ? "integer" : "number"}`, v)
      return undefined
    }
    if (integer && !Number.isInteger(v)) {
      this.add(at, "int_from_float", "Input should be a valid integer, got a number with a fractional part", v)
      return undefined
    }
    if (opts.ge !== undefined && v < opts.ge) {
      this.add(at, "greater_than_equal", `Input should be greater than or equal to ${opts.ge}`, v, { ge: opts.ge })
      return undefined
    }
    if (opts.le !== undefined && v > opts.le) {
      this.add(at, "less_than_equal", `Input should be less than or equal to ${opts.le}`, v, { le: opts.le })
      return undefined
    }
    return v
  }

  int(obj: Json | undefined, key: string, loc: Loc, opts: RangeOpts = {}) {
    return this.numeric(obj, key, loc, opts, true)
  }

  number(obj: Json | undefined, key: string, loc: Loc, opts: RangeOpts = {}) {
    return this.numeric(obj, key, loc, opts, false)
  }

  bool(obj: Json | undefined, key: string, loc: Loc, opts: { required?: boolean } = {}): boolean | undefined {
    const p = this.present(obj, key, loc, opts.required ?? false, false)
    if (!p.has) return undefined
    if (typeof p.v !== "boolean") {
      this.add([...loc, key], "bool_type", "Input should be a valid boolean", p.v)
      return undefined
    }
    return p.v
  }

  string(obj: Json | undefined, key: string, loc: Loc, opts: { required?: boolean; maxLength?: number; minLength?: number } = {}) {
    const p = this.present(obj, key, loc, opts.required ?? false, false)
    if (!p.has) return undefined
    if (typeof p.v !== "string") {
      this.add([...loc, key], "string_type", "Input should be a valid string", p.v)
      return undefined
    }
    if (opts.maxLength !== undefined && p.v.length > opts.maxLength) {
      this.add([...loc, key], "string_too_long", `String should have at most ${opts.maxLength} characters`, p.v, {
        max_length: opts.maxLength
      })
      return undefined
    }
    if (opts.minLength !== undefined && p.v.length < opts.minLength) {
      this.add([...loc, key], "string_too_short", `String should have at least ${opts.minLength} character`, p.v, {
        min_length: opts.minLength
      })
      return undefined
    }
    return p.v
  }

  literalValue<A extends string>(v: unknown, at: Loc, values: ReadonlyArray<A>): A | undefined {
    if (typeof v !== "string" || !values.includes(v as A)) {
      const expected = quoteList(values)
      this.add(at, "literal_error", `Input should be ${expected}`, v, { expected })
      return undefined
    }
    return v as A
  }

  literal<A extends string>(
    obj: Json | undefined,
    key: string,
    loc: Loc,
    values: ReadonlyArray<A>,
    opts: { required?: boolean; nullable?: boolean } = {}
  ) {
    const p = this.present(obj, key, loc, opts.required ?? false, opts.nullable ?? false)
    if (!p.has || p.v === null) return undefined
    return this.literalValue(p.v, [...loc, key], values)
  }

  array(
    obj: Json | undefined,
    key: string,
    loc: Loc,
    opts: { required?: boolean; nullable?: boolean; minItems?: number; maxItems?: number } = {}
  ): Array<unknown> | undefined {
    const p = this.present(obj, key, loc, opts.required ?? false, opts.nullable ?? false)
    if (!p.has || p.v === null) return undefined
    const at = [...loc, key]
    if (!Array.isArray(p.v)) {
      this.add(at, "list_type", "Input should be a valid list", p.v)
      return undefined
    }
    if (opts.minItems !== undefined && p.v.length < opts.minItems) {
      this.add(
        at,
        "too_short",
        `List should have at least ${opts.minItems} item${opts.minItems === 1 ? "" : "s"} after validation, not ${p.v.length}`,
        p.v,
        { field_type: "List", min_length: opts.minItems, actual_length: p.v.length }
      )
      return undefined
    }
    if (opts.maxItems !== undefined && p.v.length > opts.maxItems) {
      this.add(at, "too_long", `List should have at most ${opts.maxItems} items after validation, not ${p.v.length}`, p.v, {
        field_type: "List",
        max_length: opts.maxItems,
        actual_length: p.v.length
      })
      return undefined
    }
    return p.v
  }

  /** A list of enumeration values; returns only the valid ones. */
  literals<A extends string>(
    obj: Json | undefined,
    key: string,
    loc: Loc,
    values: ReadonlyArray<A>,
    opts: { required?: boolean; minItems?: number; nullable?: boolean } = {}
  ): Array<A> | undefined {
    const items = this.array(obj, key, loc, opts)
    if (items === undefined) return undefined
    const out: Array<A> = []
    items.forEach((v, i) => {
      const ok = this.literalValue(v, [...loc, key, i], values)
      if (ok !== undefined) out.push(ok)
    })
    return out
  }

  /** A list of integers in a range. */
  ints(
    obj: Json | undefined,
    key: string,
    loc: Loc,
    range: RangeOpts,
    opts: { required?: boolean; minItems?: number; maxItems?: number } = {}
  ): Array<number> | undefined {
    const items = this.array(obj, key, loc, opts)
    if (items === undefined) return undefined
    const out: Array<number> = []
    items.forEach((v, i) => {
      const ok = this.numericValue(v, [...loc, key, i], range, true)
      if (ok !== undefined) out.push(ok)
    })
    return out
  }

  date(obj: Json | undefined, key: string, loc: Loc, opts: { required?: boolean; nullable?: boolean } = {}): string | null | undefined {
    const p = this.present(obj, key, loc, opts.required ?? false, opts.nullable ?? false)
    if (!p.has) return undefined
    if (p.v === null) return null
    if (typeof p.v !== "string" || parseDate(p.v) === undefined) {
      this.add([...loc, key], "date_from_datetime_parsing", "Input should be a valid date or datetime, input is too short", p.v, {
        error: "input is too short"
      })
      return undefined
    }
    return p.v
  }

  /** 422 when any field issue, else 400 when any cross-field rule broke. */
  get result(): Effect.Effect<void, TokenHostError> {
    if (this.issues.length > 0) return Effect.fail(unprocessable(this.issues))
    if (this.rules.length > 0) return Effect.fail(badRequest("Request validation failed", this.rules, null))
    return Effect.void
  }
}
