/**
 * Whether process `pid` of this machine still runs (signal 0 asks the kernel without sending
 * anything; EPERM: it runs, as another user). Temporary files named after a dead process may be
 * removed; a run-state file of a dead process is stale.
 */
export const pidAlive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}
