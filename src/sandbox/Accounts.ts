/**
 * Platform accounts of the sandbox: one balance of units per credential, looked up by the key
 * a request carries. Charges also feed `ctx.stats.unitsSpent` (by credential id, never the key).
 */
import type { CredentialConfig } from "./SandboxConfig.js"
import { bump, type SandboxStats } from "./SandboxContext.js"

export interface Account {
  readonly spec: CredentialConfig
  balance: number
}

export class Accounts {
  private byKey = new Map<string, Account>()
  private byId = new Map<string, Account>()
  /** Units charged on the platform host since start (all credentials). */
  totalCharged = 0

  constructor(
    private readonly specs: ReadonlyArray<CredentialConfig>,
    private readonly stats: SandboxStats
  ) {
    this.reset()
  }

  /** Restores every credential's configured balance. */
  reset() {
    this.byKey.clear()
    this.byId.clear()
    this.totalCharged = 0
    for (const spec of this.specs) {
      const account: Account = { spec, balance: spec.balance }
      this.byKey.set(spec.key, account)
      this.byId.set(spec.id, account)
    }
  }

  lookup(key: string): Account | undefined {
    return this.byKey.get(key)
  }

  /** By credential id or by key. */
  find(idOrKey: string): Account | undefined {
    return this.byId.get(idOrKey) ?? this.byKey.get(idOrKey)
  }

  ids(): ReadonlyArray<string> {
    return [...this.byId.keys()]
  }

  charge(account: Account, units: number) {
    account.balance -= units
    this.totalCharged += units
    bump(this.stats.unitsSpent, account.spec.id, units)
  }
}
