/**
 * What a request log line may show of a URL: path and query, with credential-named parameters
 * and anything like a JWT replaced.
 */
import { describe, expect, it } from "vitest"
import { pathForLog } from "../../src/service/RequestLog.js"

describe("pathForLog", () => {
  it("keeps path and query, drops the host, redacts credentials", () => {
    expect(pathForLog("http://127.0.0.1:8701/v1/seller-leads?latitude=40.4&cursor=abc")).toBe("/v1/seller-leads?latitude=40.4&cursor=abc")
    expect(pathForLog("https://h/x?api_key=sk_live_1&access_token=t0k&keywords=pool")).toBe(
      "/x?api_key=<redacted>&access_token=<redacted>&keywords=pool"
    )
    expect(pathForLog("https://h/next/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln?page=2")).toBe("/next/<redacted>?page=2")
    expect(pathForLog("not a url")).toBe("(not a URL)")
  })
})
