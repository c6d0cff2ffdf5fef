/**
 * What the terminal allows, in a module that imports nothing (the cold start's fast path,
 * `FastPath.ts`, prints help with it before loading anything else): colour, width, word wrap.
 */

/** Whether `stream` may carry colour: a terminal, and `NO_COLOR` unset or empty (`Colour.ts`). */
export const colourFor = (stream: { readonly isTTY?: boolean | undefined }, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "")

/** Words of `text` in lines of at most `width` (a longer word gets a line of its own). */
export const wrap = (text: string, width: number): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  if (line !== "") lines.push(line)
  return lines
}

/** Columns of the terminal stdout is (at most 100, at least 60); 100 when it is not one. */
export const outputWidth = (): number =>
  process.stdout.isTTY && process.stdout.columns ? Math.max(60, Math.min(100, process.stdout.columns)) : 100
