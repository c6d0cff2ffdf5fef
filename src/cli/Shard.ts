/**
 * `--shard i/n`: this machine's share of a fan-out or sliced pipeline. Also read from the
 * environment so a scheduler distributes the work: `SHARD=i/n`, or a Kubernetes Indexed Job's
 * `JOB_COMPLETION_INDEX` with `SHARD_COUNT` (the Job's `completions`).
 */
import { Either, Option } from "effect"
import { InvalidInput } from "../pipeline/RunError.js"

export interface Shard {
  readonly index: number
  readonly count: number
}

export const parseShard = (text: string, field = "--shard"): Either.Either<Shard, InvalidInput> => {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim())
  const index = m ? Number(m[1]) : NaN
  const count = m ? Number(m[2]) : NaN
  return m && count >= 1 && index < count
    ? Either.right({ index, count })
    : Either.left(new InvalidInput({ field, detail: `expected i/n with 0 <= i < n (e.g. 0/4), got "${text}"` }))
}

/** The shard from the option, else from the environment, else none. */
export const resolveShard = (
  option: Option.Option<string>,
  env: NodeJS.ProcessEnv = process.env
): Either.Either<Option.Option<Shard>, InvalidInput> => {
  if (Option.isSome(option)) return Either.map(parseShard(option.value), Option.some)
  if (env.SHARD) return Either.map(parseShard(env.SHARD, "SHARD"), Option.some)
  if (env.JOB_COMPLETION_INDEX !== undefined && env.SHARD_COUNT !== undefined) {
    return Either.map(parseShard(`${env.JOB_COMPLETION_INDEX}/${env.SHARD_COUNT}`, "JOB_COMPLETION_INDEX/SHARD_COUNT"), Option.some)
  }
  return Either.right(Option.none())
}

/** Each shard gets its own warehouse unless one is named: `data/warehouse.duckdb` -> `data/warehouse.shard-1-of-4.duckdb`. */
export const shardWarehouse = (path: string, shard: Shard): string =>
  path.replace(/(\.duckdb)?$/, `.shard-${shard.index}-of-${shard.count}.duckdb`)
