/** The process exit code a command sets (commands succeed as effects and report their ending here). */
export const exitCode = { value: 0 }
