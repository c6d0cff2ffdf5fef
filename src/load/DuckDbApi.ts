/**
 * `@duckdb/node-api`, loaded with `require`. The package is CommonJS: an ES module that imports it
 * makes Node lex its ~100 files for their named exports (cjs-module-lexer, with V8 compiling the
 * lexer four times), 0.1 s of CPU in every process that opens a warehouse (measured). `require`
 * skips that. Modules import types from the package as usual and its values from here.
 */
import { createRequire } from "node:module"

export const duckdb: typeof import("@duckdb/node-api") = createRequire(import.meta.url)("@duckdb/node-api")
