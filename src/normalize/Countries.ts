/**
 * Country codes: every table's `country` column holds ISO 3166-1 alpha-2, upper case. The
 * service names countries in several ways (a `locations_structure` top node `Spain`, a plot
 * search's lower-case `de`, a sourcing record's `ES`); tables whose raw value differs from the
 * code keep it in `country_raw`.
 *
 * Assumed: the 16 countries are those of docs/ASSUMPTIONS.md (the spec does not list them); names
 * are matched in English (the spec's language) and in each country's own languages, ignoring
 * case and accents. An unknown two-letter value is upper-cased; any other unknown value gives a
 * NULL code (the raw value is kept).
 */

/** The 16 countries: code and the names they go by. */
export const COUNTRIES: ReadonlyArray<{ readonly code: string; readonly names: ReadonlyArray<string> }> = [
  { code: "ES", names: ["Spain", "España", "Espanya", "Espainia"] },
  { code: "PT", names: ["Portugal"] },
  { code: "FR", names: ["France"] },
  { code: "IT", names: ["Italy", "Italia"] },
  { code: "DE", names: ["Germany", "Deutschland"] },
  { code: "GR", names: ["Greece", "Ελλάδα", "Ellada", "Hellas"] },
  { code: "AD", names: ["Andorra"] },
  { code: "GB", names: ["United Kingdom", "UK", "Great Britain"] },
  { code: "NL", names: ["Netherlands", "Nederland", "The Netherlands"] },
  { code: "BE", names: ["Belgium", "België", "Belgique", "Belgien"] },
  { code: "AT", names: ["Austria", "Österreich"] },
  { code: "CH", names: ["Switzerland", "Schweiz", "Suisse", "Svizzera", "Svizra"] },
  { code: "IE", names: ["Ireland", "Éire"] },
  { code: "PL", names: ["Poland", "Polska"] },
  { code: "HR", names: ["Croatia", "Hrvatska"] },
  { code: "CY", names: ["Cyprus", "Κύπρος", "Kıbrıs"] }
]

const fold = (s: string) => s.normalize("NFD").replace(/\p{M}/gu, "").trim().toLowerCase()

const BY_NAME: ReadonlyMap<string, string> = new Map(
  COUNTRIES.flatMap((c) => [[fold(c.code), c.code] as const, ...c.names.map((n) => [fold(n), c.code] as const)])
)

/** ISO 3166-1 alpha-2 (upper case) of a country code or name the service gave; null if unknown. */
export const countryCode = (raw: unknown): string | null => {
  if (typeof raw !== "string" || raw.length === 0) return null
  if (raw.length === 2 && raw >= "AA" && raw <= "ZZ" && /^[A-Z]{2}$/.test(raw)) return raw
  const known = BY_NAME.get(fold(raw))
  if (known !== undefined) return known
  return /^[A-Za-z]{2}$/.test(raw) ? raw.toUpperCase() : null
}

/**
 * The same mapping in SQL over the expression `raw` (migrating rows landed before country codes):
 * known names and codes by a CASE on the folded text, other two-letter values upper-cased.
 */
export const countryCodeSql = (raw: string): string => {
  const folded = `lower(trim(strip_accents(${raw})))`
  const whens = [...BY_NAME].map(([name, code]) => `WHEN '${name.replaceAll("'", "''")}' THEN '${code}'`).join(" ")
  return `CASE ${folded} ${whens} ELSE CASE WHEN regexp_full_match(${raw}, '[A-Za-z]{2}') THEN upper(${raw}) END END`
}
