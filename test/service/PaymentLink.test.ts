import { describe, expect, it } from "vitest"
import { DEFAULT_PAYMENT_LINK_MEMBER, platformError } from "../../src/service/ErrorMapping.js"
import { PaymentRequired } from "../../src/service/ServiceError.js"

const problem402 = (body: Record<string, unknown>, headers: Record<string, string> = {}) => ({
  status: 402,
  headers: { "content-type": "application/problem+json", ...headers },
  text: JSON.stringify(body)
})

const paymentRequired = (e: unknown): PaymentRequired => {
  if (!(e instanceof PaymentRequired)) throw new Error(`expected PaymentRequired, got ${String((e as { _tag?: string })._tag)}`)
  return e
}

const base = {
  type: "about:blank",
  title: "Payment Required",
  status: 402,
  code: "payment_required",
  detail: "The unit balance is 0",
  request_id: "req-42"
}

describe("platformError: the 402 payment link", () => {
  it("reads the link from payment_url by default", () => {
    expect(DEFAULT_PAYMENT_LINK_MEMBER).toBe("payment_url")
    const e = paymentRequired(
      platformError("plot_search", problem402({ ...base, payment_url: "https://billing.example/top-up?acct=7" }), undefined, 0)
    )
    expect(e._tag).toBe("PaymentRequired")
    expect(e.paymentUrl).toBe("https://billing.example/top-up?acct=7")
    expect(e.requestId).toBe("req-42")
    expect(e.detail).toBe("The unit balance is 0")
    expect(e.links).toEqual([])
    expect(e.message).toBe(
      "plot_search (request req-42): payment required, the unit balance is spent (The unit balance is 0); add units at https://billing.example/top-up?acct=7"
    )
  })

  it("reads the link from another member when paymentLinkMember is passed", () => {
    const e = paymentRequired(
      platformError("plot_search", problem402({ ...base, top_up_url: "https://billing.example/units" }), undefined, 0, "top_up_url")
    )
    expect(e.paymentUrl).toBe("https://billing.example/units")
    expect(e.links).toEqual([])
    expect(e.message).toContain("add units at https://billing.example/units")
  })

  it("when the member differs from the setting, the message still shows the detail and every URL member", () => {
    const body = {
      ...base,
      top_up_url: "https://billing.example/units?acct=7",
      invoice: "http://billing.example/invoices/9",
      help: "see the billing page",
      amount: 3
    }
    const e = paymentRequired(platformError("market_analysis", problem402(body), undefined, 0))
    expect(e.paymentUrl).toBeUndefined()
    expect(e.message).toContain("The unit balance is 0")
    expect(e.message).toContain("top_up_url: https://billing.example/units?acct=7")
    expect(e.message).toContain("invoice: http://billing.example/invoices/9")
    expect(e.message).not.toContain("see the billing page")
    expect(e.message).not.toContain("add units at")
    expect(e.links).toEqual(["top_up_url: https://billing.example/units?acct=7", "invoice: http://billing.example/invoices/9"])

    // a setting naming another member: the default member's link is still shown
    const other = paymentRequired(
      platformError("market_analysis", problem402({ ...base, payment_url: "https://billing.example/pay" }), undefined, 0, "checkout")
    )
    expect(other.paymentUrl).toBeUndefined()
    expect(other.message).toContain("The unit balance is 0")
    expect(other.message).toContain("payment_url: https://billing.example/pay")
  })

  it("takes the request id from the header when the body has none", () => {
    const { request_id: _, ...noId } = base
    const e = paymentRequired(
      platformError(
        "plot_search",
        problem402({ ...noId, payment_url: "https://billing.example/pay" }, { "svc-request-id": "hdr-1" }),
        undefined,
        0
      )
    )
    expect(e.requestId).toBe("hdr-1")
    expect(e.message).toContain("(request hdr-1)")
  })
})
