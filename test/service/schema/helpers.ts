import { Either, Schema } from "effect"
import { expect } from "vitest"
import { type RequestIssue, validateRequest } from "../../../src/service/schema/index.js"

/** Validates and expects a refusal; returns the issues. */
export const refused = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): ReadonlyArray<RequestIssue> => {
  const r = validateRequest(schema, input)
  if (Either.isRight(r)) throw new Error(`expected a refusal, got ${JSON.stringify(r.right)}`)
  expect(r.left._tag).toBe("RequestValidationError")
  expect(r.left.reason).toBe("InvalidRequest")
  expect(r.left.message.split("\n")).toHaveLength(r.left.issues.length)
  return r.left.issues
}

/** Expects exactly one issue and returns its `field: message` line. */
export const refusedLine = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): string => {
  const issues = refused(schema, input)
  const lines = issues.map((i) => (i.field === "" ? i.message : `${i.field}: ${i.message}`))
  expect(lines).toHaveLength(1)
  return lines[0]!
}

/** Validates and expects acceptance; returns the decoded value. */
export const accepted = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): A => {
  const r = validateRequest(schema, input)
  if (Either.isLeft(r)) throw new Error(`expected acceptance, got:\n${r.left.message}`)
  return r.right
}
