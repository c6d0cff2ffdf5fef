/**
 * Response parts shared by the token host's records: location, coordinates, features,
 * contact details and the paginated envelope. All open (see Open.ts).
 */
import { Schema } from "effect"
import { Characteristic, Direction, FloorType, Orientation, View } from "./Enums.js"
import { Int, nullable, open } from "./Open.js"

/**
 * Location object (`location`, and each item of `locations_structure`, which lists every parent
 * up to the country, the property's own location included). `zip_codes` defaults to empty.
 */
export const Location = open({
  location_id: Schema.Int,
  name: Schema.String,
  administrative_level: nullable(Schema.String),
  zip_codes: nullable(Schema.Array(Schema.String))
})
export type Location = typeof Location.Type

/** `coordinates` on token-host records. */
export const Coordinates = open({
  latitude: Schema.Number,
  longitude: Schema.Number
})
export type Coordinates = typeof Coordinates.Type

/**
 * `features` on properties, alerts and comparables (7 members). `view` and `direction` are
 * deprecated singular forms of `views` and `directions`.
 */
export const Features = open({
  floor: nullable(FloorType.schema),
  orientation: nullable(Orientation.schema),
  view: nullable(View.schema),
  views: nullable(Schema.Array(View.schema)),
  direction: nullable(Direction.schema),
  directions: nullable(Schema.Array(Direction.schema)),
  characteristics: nullable(Schema.Array(Characteristic.schema))
})
export type Features = typeof Features.Type

/** `contacts_info` on listings and alerts; `name` is the owner's, FSBO listings only. */
export const ContactsInfo = open({
  name: nullable(Schema.String),
  email: nullable(Schema.String),
  phone: nullable(Schema.String)
})
export type ContactsInfo = typeof ContactsInfo.Type

/** The token host's page envelope: `count`, `next`/`previous` URIs (nullable), `results`. */
export const Envelope = <S extends Schema.Schema.Any>(results: S) =>
  open({
    count: Schema.Int,
    next: nullable(Schema.String),
    previous: nullable(Schema.String),
    results
  })

/** Areas in square metres and room counts, as alerts and comparables carry them (in this order). */
export const AreasAndRooms = {
  total_area: nullable(Int),
  living_area: nullable(Int),
  plot_area: nullable(Int),
  terrace_area: nullable(Int),
  bedrooms: nullable(Int),
  rooms: nullable(Int),
  bathrooms: nullable(Int)
}
