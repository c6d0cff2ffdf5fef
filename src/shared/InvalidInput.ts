/**
 * Bad parameters or settings: found before any request is sent or any unit spent (exit 2). Shared
 * by every room that checks what a person configured (settings, parameters, options, folders).
 */
import { Data } from "effect"

export class InvalidInput extends Data.TaggedError("InvalidInput")<{
  /** The field (dotted path) or option that is wrong, e.g. `plots-germany.params.limit`. */
  readonly field: string
  /** What is wrong and what is allowed, one line. */
  readonly detail: string
}> {
  override get message() {
    return `${this.field}: ${this.detail}`
  }
}
