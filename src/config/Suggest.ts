/**
 * "Did you mean": the allowed name closest to a misspelt one (edit distance, case-insensitive,
 * a swap of two neighbouring letters counting as one edit), when it is close enough to be a typo.
 */

/** Edits (insert, delete, replace, swap of neighbours) between `a` and `b`, case-insensitive. */
export const editDistance = (a: string, b: string): number => {
  const s = a.toLowerCase()
  const t = b.toLowerCase()
  const d: Array<Array<number>> = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)])
  for (let j = 0; j <= t.length; j++) d[0]![j] = j
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
    }
  }
  return d[s.length]![t.length]!
}

/** Edits a word of this length may have and still be taken for a typo. */
const tolerance = (length: number) => Math.max(1, Math.min(3, Math.floor(length / 3)))

/** The candidate closest to `word` within the tolerance (first one on a tie), if any. */
export const closest = (word: string, candidates: Iterable<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const c of candidates) {
    if (c === word) continue
    const distance = editDistance(word, c)
    if (distance < bestDistance) {
      best = c
      bestDistance = distance
    }
  }
  return best !== undefined && bestDistance <= tolerance(word.length) ? best : undefined
}

/**
 * `; did you mean "x"?` when a candidate is close, else `; allowed: a, b, c` (or nothing when
 * `listAllowed` is false).
 */
export const suggestion = (
  word: string,
  candidates: ReadonlyArray<string>,
  options: { readonly listAllowed?: boolean; readonly quote?: boolean } = {}
): string => {
  const best = closest(word, candidates)
  if (best !== undefined) return `; did you mean ${options.quote === false ? best : JSON.stringify(best)}?`
  return options.listAllowed === false || candidates.length === 0 ? "" : `; allowed: ${candidates.join(", ")}`
}
