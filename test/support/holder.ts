/**
 * A process that opens a DuckDB file and holds it (DuckDB's lock is per process) until killed:
 * another process's run or read then finds the warehouse held.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"

export const holder = (file: string) =>
  new Promise<ChildProcess>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { DuckDBInstance } from "@duckdb/node-api"
         const db = await DuckDBInstance.create(${JSON.stringify(file)})
         await db.connect()
         console.log("ready")
         setInterval(() => {}, 1000)`
      ],
      { cwd: path.resolve(import.meta.dirname, "../.."), stdio: ["ignore", "pipe", "inherit"] }
    )
    child.stdout!.on("data", (d) => String(d).includes("ready") && resolve(child))
    child.on("exit", (code) => reject(new Error(`holder exited ${code} before it held the file`)))
  })
