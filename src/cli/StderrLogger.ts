/**
 * Where the command line's log lines go: stderr, never stdout (stdout holds results a script
 * reads: tables, JSON, query rows). On a terminal one line of text (`DEBUG message key=value`);
 * otherwise one JSON line like the run events (`{"at", "type": "log", "level", "message", ...}`),
 * so a log shipper reads both. Which levels show is Effect's minimum log level (`--log-level`,
 * default warning: `Cli.ts`).
 */
import { Cause, HashMap, Inspectable, Logger } from "effect"

const plain = (v: unknown): unknown => (typeof v === "bigint" ? String(v) : Inspectable.toJSON(v))

const textOf = (v: unknown): string => {
  const p = plain(v)
  return typeof p === "string" ? p : JSON.stringify(p)
}

/** Fields a request line leads with (`service/RequestLog.ts`); others follow by name. */
const FIRST = ["status", "failed", "units", "ms", "operation"]
const rank = (key: string) => (FIRST.includes(key) ? FIRST.indexOf(key) : FIRST.length)
const quoted = (text: string) => (/[\s"=]/.test(text) ? JSON.stringify(text) : text)

/** Formats to text or JSON and writes each line to stderr. */
export const stderrLogger = (asJson: boolean) =>
  Logger.make(({ annotations, cause, date, logLevel, message }) => {
    const messages = Array.isArray(message) ? message : [message]
    const fields = Object.fromEntries([...HashMap.toEntries(annotations)].map(([k, v]) => [k, plain(v)]))
    const why = Cause.isEmpty(cause) ? undefined : Cause.pretty(cause).split("\n")[0]
    const line = asJson
      ? JSON.stringify({
          at: date.toISOString(),
          type: "log",
          level: logLevel.label,
          message: messages.map(textOf).join(" "),
          ...fields,
          ...(why !== undefined ? { cause: why } : {})
        })
      : // clears a live progress line first
        `\r\x1b[2K${logLevel.label} ${messages.map(textOf).join(" ")}` +
        Object.entries(fields)
          .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
          .map(([k, v]) => ` ${k}=${quoted(textOf(v))}`)
          .join("") +
        (why !== undefined ? ` (${why})` : "")
    process.stderr.write(line + "\n")
  })

/** The default logger replaced by the stderr one (JSON off a terminal). */
export const StderrLogger = Logger.replace(Logger.defaultLogger, stderrLogger(!process.stderr.isTTY))
