import { describe, expect, it } from "vitest"
import { flatTable, rowShape } from "../../src/normalize/Flatten.js"

describe("flatTable rows", () => {
  it("a row holds every column in declaration order, read, converted and with unknown fields in extra", () => {
    const t = flatTable<Record<string, unknown>, { at: string }>(
      "things",
      { id: "VARCHAR", n: "INTEGER", price: "DECIMAL(18,2)", tags: "VARCHAR[]", seen: ["TIMESTAMPTZ", (_r, c) => c.at], flag: "BOOLEAN" },
      { primaryKey: ["id"], disposition: "merge", extraOf: ["id", "n", "price", "tags", "flag"] }
    )
    const a = t.row({ id: "a", n: 3, price: 1.5, tags: ["x"], flag: "yes", other: { deep: 1 } }, { at: "2026-01-01T00:00:00Z" })
    const b = t.row({ id: "b" }, { at: "2026-01-02T00:00:00Z" })
    expect(Object.keys(a)).toEqual(["id", "n", "price", "tags", "seen", "flag", "extra"])
    expect(a).toEqual({
      id: "a",
      n: 3,
      price: 1.5,
      tags: '["x"]',
      seen: "2026-01-01T00:00:00Z",
      flag: null,
      extra: '{"other":{"deep":1}}'
    })
    // rows built one after another are separate objects (the values buffer is reused, rows are not)
    expect(b).toEqual({ id: "b", n: null, price: null, tags: null, seen: "2026-01-02T00:00:00Z", flag: null, extra: null })
    expect(a.id).toBe("a")
  })

  it("column names are keys as written, even ones a literal would read as code or as the prototype", () => {
    const names = ["plain", 'quote"d', "new\nline", "a\\b", "constructor", "${x}"]
    const row = rowShape(names)(names.map((_, i) => i))
    expect(Object.keys(row)).toEqual(names)
    expect(names.map((n) => row[n])).toEqual([0, 1, 2, 3, 4, 5])

    const proto = rowShape(["id", "__proto__"])(["k", "v"])
    expect(Object.keys(proto)).toEqual(["id", "__proto__"])
    expect(Object.getOwnPropertyDescriptor(proto, "__proto__")?.value).toBe("v")
    expect(Object.getPrototypeOf(proto)).toBe(null)
  })
})
