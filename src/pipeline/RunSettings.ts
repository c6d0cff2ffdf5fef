/**
 * What every run takes from the settings, whoever starts it (`run`, `demo`, a library session):
 * one place, so a new budget or landing setting reaches every caller.
 */
import { durationMs, type Settings } from "../config/Settings.js"
import type { RunRequest } from "./Runner.js"

export type SettingsOfRun = Pick<RunRequest, "maxRejectRatio" | "landing" | "costs" | "reuseWithinMs" | "paidRereads">

export const runSettingsOf = (settings: Settings): SettingsOfRun => ({
  maxRejectRatio: settings.budget.maxRejectRatio,
  landing: { groupPages: settings.duckdb.groupPages, groupRecords: settings.duckdb.groupRecords, groupWaitMs: settings.duckdb.groupWaitMs },
  costs: settings.budget.costs,
  reuseWithinMs: durationMs(settings.budget.reuseWithin),
  paidRereads: settings.budget.paidRereads
})
