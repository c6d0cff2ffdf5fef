/**
 * Typed schemas of the service (client side): records (open: unknown fields kept), request
 * bodies (rules checked locally), enumerations and the validation helpers.
 *
 * For the normalizer: decode a record with `makeRecordDecoder(Property)` (bulk fast path, same
 * verdicts as `Schema.decodeUnknownEither`), then `splitExtra(Property.fields, record)` gives
 * the declared fields and the unknown ones (`extra`). Nested records are open too; their known
 * fields are `<Schema>.fields` (e.g. `Listing.fields`, `Location.fields`).
 * For the CLI and clients: `validateRequest(ComparablesRequest, body)` fails with a
 * `RequestValidationError` whose message has one `field: what is allowed (got ...)` line per problem.
 */
export * from "./Enums.js"
export * from "./Open.js"
export * from "./Rules.js"
export * from "./Validation.js"
export * from "./Shared.js"
export * from "./Property.js"
export * from "./PropertyRequests.js"
export * from "./Alert.js"
export * from "./Comparables.js"
export * from "./ComparablesRequest.js"
export * from "./Plots.js"
export * from "./TimeSeries.js"
export * from "./Distributions.js"
export * from "./References.js"
export * from "./SmartLink.js"
export * from "./Auth.js"
export * from "./Problem.js"
export * from "./TokenHostErrors.js"
export * from "./Premises.js"
export * from "./Sourcing.js"
export * from "./SellerLeads.js"
export * from "./Feeds.js"
