/**
 * `@duckdb/node-api`, loaded with `require` when a value of it is first read. The package is
 * CommonJS: an ES module that imports it makes Node lex its ~100 files for their named exports
 * (cjs-module-lexer, with V8 compiling the lexer four times), 0.1 s of CPU in every process that
 * opens a warehouse (measured); `require` skips that. Loading on first use (not when this module
 * is evaluated, which every command's module graph reaches) spares a process that opens no
 * warehouse (`--version`, a bad flag, `plan`) ~0.4 s of CPU: the package's JavaScript and the
 * native library's `dlopen`. Modules import types from the package as usual and its values from here.
 */
import { createRequire } from "node:module"

type Api = typeof import("@duckdb/node-api")

let api: Api | undefined
const load = (): Api => (api ??= createRequire(import.meta.url)("@duckdb/node-api") as Api)

export const duckdb: Api = new Proxy({} as Api, {
  get: (_, key) => load()[key as keyof Api],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => {
    const d = Reflect.getOwnPropertyDescriptor(load(), key)
    return d && { ...d, configurable: true }
  }
})
