/**
 * Colour only where it can be seen: ANSI styling goes to a stream only when it is a terminal and
 * `NO_COLOR` (https://no-color.org) is unset or empty. What this program writes itself is plain
 * (tables, summaries, JSON); the help's headings (`Help.ts`) and @effect/cli's own output
 * (validation errors, `--version`, the wizard), which styles everything it prints through the
 * Effect `Console`, pass through `withPlainConsole`.
 *
 * The live progress line (`pipeline/Progress.ts`) rewrites its line with a cursor control, not a
 * colour, and only on a terminal; JSON lines elsewhere.
 */
import { Console, Effect } from "effect"
import { colourFor } from "./Terminal.js"

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g

export const stripAnsi = (text: string): string => text.replace(ANSI, "")

export { colourFor }

const plain = (stream: NodeJS.WriteStream, args: ReadonlyArray<unknown>) =>
  colourFor(stream) ? args : args.map((a) => (typeof a === "string" ? stripAnsi(a) : a))

/** `console` with ANSI styling taken out of what goes to a stream that may not carry colour. */
const plainConsole = (console: Console.Console): Console.Console => ({
  ...console,
  log: (...args) => console.log(...plain(process.stdout, args)),
  info: (...args) => console.info(...plain(process.stdout, args)),
  debug: (...args) => console.debug(...plain(process.stdout, args)),
  error: (...args) => console.error(...plain(process.stderr, args)),
  warn: (...args) => console.warn(...plain(process.stderr, args)),
  unsafe: {
    ...console.unsafe,
    log: (...args) => console.unsafe.log(...plain(process.stdout, args)),
    info: (...args) => console.unsafe.info(...plain(process.stdout, args)),
    error: (...args) => console.unsafe.error(...plain(process.stderr, args)),
    warn: (...args) => console.unsafe.warn(...plain(process.stderr, args))
  }
})

/** Runs `effect` with the current console made plain where colour cannot be seen. */
export const withPlainConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Console.consoleWith((console) => Console.withConsole(effect, plainConsole(console)))
