/** What a page's rows may know about where they came from (handed to every record mapping). */
export interface PageContext {
  readonly runId: string
  /** The slice key (fan-out key, place...) the page belongs to. */
  readonly slice: string
  /** The run's extraction time (ISO), the same for every page of a run. */
  readonly extractedAt: string
}
