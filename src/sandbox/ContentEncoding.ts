/**
 * Dialect `contentEncoding`: every JSON answer of both hosts (errors included) sent in a content
 * coding, with `Content-Encoding`. RFC 9110 §12.5.3: a request without `Accept-Encoding` accepts
 * any coding, so the server may pick one; a listed coding (or `*`) with a weight above 0 allows
 * it; otherwise the answer goes uncoded (`Vary: Accept-Encoding` either way). `zstd` is sent
 * whatever the request says: a server that ignores `Accept-Encoding`, in a coding the client may
 * not decode.
 *
 * zstd: Node's zlib has `zstdCompressSync` from Node 22.15 / 23.8 and it is used when present.
 * On older Node (20 here) the body is written as a zstd frame (RFC 8878) of raw blocks: a valid
 * frame that any zstd decoder reads, holding the bytes uncompressed (`zstdRawFrame`).
 */
import { HttpBody, HttpServerResponse } from "@effect/platform"
import * as zlib from "node:zlib"

export type ContentCoding = "gzip" | "br" | "deflate" | "zstd"

/** Whether an `Accept-Encoding` value (undefined: the header is absent) allows `coding`. */
export const acceptsCoding = (header: string | undefined, coding: ContentCoding): boolean => {
  if (header === undefined) return true
  let star: number | undefined
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((s) => s.trim())
    const q = params.find((p) => /^q=/i.test(p))
    const weight = q === undefined ? 1 : Number(q.slice(2))
    const n = name.toLowerCase()
    if (n === coding || (coding === "gzip" && n === "x-gzip")) return weight > 0
    if (n === "*") star = weight
  }
  return star !== undefined && star > 0
}

/** zstd's frame magic number, little-endian on the wire (28 b5 2f fd). */
const ZSTD_MAGIC = 0xfd2fb528
/** Block_Maximum_Size of RFC 8878: 128 KiB. */
const ZSTD_BLOCK_MAX = 128 * 1024

/**
 * A zstd frame holding `data` in raw (stored) blocks: single segment, a 4-byte content size, no
 * checksum, no dictionary. Valid zstd (RFC 8878 §3.1.1), not smaller than its content.
 */
export const zstdRawFrame = (data: Uint8Array): Uint8Array => {
  const blocks = Math.max(1, Math.ceil(data.length / ZSTD_BLOCK_MAX))
  const out = new Uint8Array(9 + 3 * blocks + data.length)
  const view = new DataView(out.buffer)
  view.setUint32(0, ZSTD_MAGIC, true)
  // Frame_Header_Descriptor: Frame_Content_Size_flag 2 (4 bytes), Single_Segment_flag 1.
  out[4] = 0b1010_0000
  view.setUint32(5, data.length, true)
  let at = 9
  for (let b = 0; b < blocks; b++) {
    const chunk = data.subarray(b * ZSTD_BLOCK_MAX, (b + 1) * ZSTD_BLOCK_MAX)
    // Block_Header: Last_Block (bit 0), Block_Type 0 = Raw (bits 1-2), Block_Size (bits 3-23).
    const header = (chunk.length << 3) | (b === blocks - 1 ? 1 : 0)
    out[at] = header & 0xff
    out[at + 1] = (header >>> 8) & 0xff
    out[at + 2] = (header >>> 16) & 0xff
    out.set(chunk, at + 3)
    at += 3 + chunk.length
  }
  return out
}

const zstdCompress = (zlib as { readonly zstdCompressSync?: (data: Uint8Array) => Uint8Array }).zstdCompressSync

/** The bytes in a coding (`deflate` is the zlib format, as HTTP's `deflate` is). */
export const encodeBytes = (coding: ContentCoding, data: Uint8Array): Uint8Array => {
  switch (coding) {
    case "gzip":
      return zlib.gzipSync(data)
    case "deflate":
      return zlib.deflateSync(data)
    case "br":
      return zlib.brotliCompressSync(data)
    case "zstd":
      return zstdCompress !== undefined ? zstdCompress(data) : zstdRawFrame(data)
  }
}

/**
 * A response as the dialect sends it: a JSON body in `coding` when the request allows it (zstd:
 * always). Other bodies, and responses already coded, pass unchanged; so does everything when
 * `coding` is undefined (the default dialect).
 */
export const encodeResponse = (
  coding: ContentCoding | undefined,
  acceptEncoding: string | undefined,
  res: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  if (coding === undefined || res.body._tag !== "Uint8Array" || !res.body.contentType.includes("json")) return res
  if (res.headers["content-encoding"] !== undefined) return res
  const varied = coding === "zstd" ? res : HttpServerResponse.setHeader(res, "vary", "Accept-Encoding")
  if (coding !== "zstd" && !acceptsCoding(acceptEncoding, coding)) return varied
  const coded = HttpBody.uint8Array(encodeBytes(coding, res.body.body), res.body.contentType)
  return HttpServerResponse.setBody(HttpServerResponse.setHeader(varied, "content-encoding", coding), coded)
}
