/**
 * Content codings of answers (RFC 9110 8.4). A request without `Accept-Encoding` accepts any
 * coding, so a server may compress as it likes, and the HTTP client hands the bytes on as they
 * came. The clients therefore name the codings they read (`ACCEPT_ENCODING`) and decode the body
 * before anything parses it; a coding they cannot read is a named failure that says which one,
 * never "not valid JSON".
 */
import * as zlib from "node:zlib"

/** What every request says it reads: gzip, deflate and brotli (Node's zlib decodes all three). */
export const ACCEPT_ENCODING = "gzip, deflate, br"

export type Decoded = { readonly text: string } | { readonly unsupported: string } | { readonly corrupt: string }

/** The codings of a `Content-Encoding` header, in the order they were applied. */
const codingsOf = (header: string | undefined): Array<string> =>
  (header ?? "")
    .split(",")
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== "" && c !== "identity")

/** `deflate` is a zlib stream by the RFC; some servers send a raw deflate stream: both are read. */
const inflate = (bytes: Buffer): Buffer => {
  try {
    return zlib.inflateSync(bytes)
  } catch {
    return zlib.inflateRawSync(bytes)
  }
}

const DECODERS: Readonly<Record<string, (bytes: Buffer) => Buffer>> = {
  gzip: (b) => zlib.gunzipSync(b),
  "x-gzip": (b) => zlib.gunzipSync(b),
  deflate: inflate,
  br: (b) => zlib.brotliDecompressSync(b)
}

/** The body's text after undoing its codings (last applied, first undone). */
export const decodeBody = (bytes: Uint8Array, contentEncoding: string | undefined): Decoded => {
  const codings = codingsOf(contentEncoding)
  let body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  for (const coding of codings.reverse()) {
    const decode = DECODERS[coding]
    if (decode === undefined) return { unsupported: coding }
    try {
      body = decode(body)
    } catch (e) {
      return { corrupt: `${coding}: ${String((e as Error).message ?? e).slice(0, 80)}` }
    }
  }
  return { text: body.toString("utf8") }
}
