/**
 * Request rules the token client checks before anything is sent: the schema folder's request
 * schemas, one per operation (bodies and queries), as `PlatformRequests.ts` is for the platform
 * host. The client's methods take each one's encoded side, so a misspelt or mistyped member of a
 * request is a compile error where a pipeline writes it, and a value outside a rule fails before
 * the call (`InvalidRequest`).
 */
import { ComparablesV1Request } from "./schema/Comparables.js"
import { ComparablesRequest } from "./schema/ComparablesRequest.js"
import { MarketFilterRequest } from "./schema/Distributions.js"
import { AlertSearchRequest, FeedAlertsQuery } from "./schema/Alert.js"
import { AlertsApiFeedsQuery, FeedRequest, RotateSecretRequest, WebhookUrlRequest } from "./schema/Feeds.js"
import { AnyKeys } from "./schema/Open.js"
import { MatchByListingsRequest, PropertyByIdQuery, PropertySearchV1Request, PropertySearchV2Request } from "./schema/PropertyRequests.js"
import { ByCoordinatesQuery, LocationsRequest, SourcesQuery, TypeaheadRequest, ZipcodeBoundaryRequest } from "./schema/References.js"
import { SmartLinkRequest } from "./schema/SmartLink.js"
import { TimeSeriesRequest } from "./schema/TimeSeries.js"

/** Each operation's request schema, as declared: the client's methods take its encoded side. */
export const TokenRequests = {
  // Properties
  matchByListings: MatchByListingsRequest,
  propertyByIdQuery: PropertyByIdQuery,
  propertiesSearchV1: PropertySearchV1Request,
  propertiesSearchV2: PropertySearchV2Request,
  smartLink: SmartLinkRequest,
  // Comparables & valuation
  comparablesV1: ComparablesV1Request,
  comparablesV2: ComparablesRequest,
  /**
   * Not shown by the spec (an AI Builder session from a saved valuation): any keys, nothing
   * checked here (the sandbox reads `valuation_id`).
   */
  comparablesAiBuilder: AnyKeys,
  /** Assumed (docs/ASSUMPTIONS.md): the comparables v2 body. */
  valuationPrices: ComparablesRequest,
  // Area insights
  timeSeries: TimeSeriesRequest,
  /** Every distribution and the analysis (Assumed: the time-series body less its series members). */
  marketFilter: MarketFilterRequest,
  // Alerts
  feed: FeedRequest,
  feedAlertsQuery: FeedAlertsQuery,
  alertsSearch: AlertSearchRequest,
  alertsApiFeedsQuery: AlertsApiFeedsQuery,
  webhookUrl: WebhookUrlRequest,
  rotateSecret: RotateSecretRequest,
  // References
  sourcesQuery: SourcesQuery,
  locations: LocationsRequest,
  byCoordinatesQuery: ByCoordinatesQuery,
  typeahead: TypeaheadRequest,
  zipcodeBoundary: ZipcodeBoundaryRequest
} as const

/** The body (or query) an operation's client method takes: what its request schema reads. */
export type TokenBody<K extends keyof typeof TokenRequests> = (typeof TokenRequests)[K]["Encoded"]
