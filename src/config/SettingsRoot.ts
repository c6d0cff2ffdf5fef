/**
 * Settings found from a sub-folder, the way git finds its repository: a command run without
 * `--config` in a folder that holds no settings file looks for one in each parent folder, up to
 * the repository's root (the folder holding `.git`) or the file system's. Found above, the command
 * works from that folder: the settings' relative paths (the warehouse under `data/`, pipeline
 * modules, `.env`) mean what they mean at the root, and `data/` is never written in a sub-folder.
 */
import * as fs from "node:fs"
import * as nodePath from "node:path"
import { DEFAULT_CONFIGS } from "./loadSettings.js"

/** The folder at or above `cwd` holding one of `DEFAULT_CONFIGS`; none below a repository root that has none. */
export const settingsRoot = (cwd: string): string | undefined => {
  for (let dir = nodePath.resolve(cwd); ;) {
    if (DEFAULT_CONFIGS.some((f) => fs.existsSync(nodePath.join(dir, f)))) return dir
    if (fs.existsSync(nodePath.join(dir, ".git"))) return undefined
    const up = nodePath.dirname(dir)
    if (up === dir) return undefined
    dir = up
  }
}

/** Commands that work in the folder they are given, whatever settings lie above it. */
const HERE = new Set(["init", "sandbox", "completions"])

/**
 * Moves the process to the settings root when `args` name no settings file and the working
 * directory has none; returns the line that says so (for stderr), or nothing when it stays.
 */
export const moveToSettingsRoot = (args: ReadonlyArray<string>, command: string | undefined): string | undefined => {
  if (command === undefined || HERE.has(command)) return undefined
  // a settings file named (flag or ESTATE_ETL_CONFIG) is read from where the command was started
  if (args.some((a) => a === "--config" || a === "-c" || a.startsWith("--config=")) || process.env.ESTATE_ETL_CONFIG) return undefined
  const cwd = process.cwd()
  const root = settingsRoot(cwd)
  if (root === undefined || root === cwd) return undefined
  process.chdir(root)
  const file = DEFAULT_CONFIGS.find((f) => fs.existsSync(nodePath.join(root, f)))!
  return `settings: ${nodePath.join(root, file)} (found above ${cwd}; relative paths are from ${root})`
}
