/**
 * lockcheck as a library:
 *
 *   import { fuzz, run, check } from "lockcheck";
 *   const report = await fuzz({ target: "sim:redlock", seed: 7, runs: 500 });
 *   if (report.violation) console.log(report.counterexample?.replay);
 *
 * - `fuzz` searches for a violating schedule, shrinks it and saves it (like `lockcheck fuzz`);
 * - `run` runs one schedule (given or generated from a seed) on a target and checks it;
 * - `check` runs the checkers over a recorded history.
 * Targets are names ("sim:redlock", "redis:lease", "module:./my-lock.js") or lock objects
 * (a LockAlgorithm, a PlainLock: see docs/custom-locks.md). Bad arguments reject at once with
 * a LockcheckInputError that names the call and the field.
 *
 * The fast-check arbitraries that generate schedules are exported too, for property tests of
 * your own; and "lockcheck/vitest" adds `expect(report).toHaveNoViolations()`.
 */

export { type CheckOptions, type CheckReport, check } from "./api/check.js";
export { type Counterexample, type FuzzOptions, type FuzzReport, fuzz } from "./api/fuzz.js";
export { type RunOptions, type RunReport, run } from "./api/run.js";
export { LockcheckInputError, type TargetArg } from "./api/target-arg.js";
export { CHECKER_NAMES, type CheckerName, SAFETY_CHECKERS } from "./checkers/index.js";
export type { Anomaly, Validity, Verdict } from "./checkers/verdict.js";
// Lock implementations of your own.
export type { CallError, CallResult, EtcdApi, LockEnv, RedisApi, ResourceApi, ZkApi } from "./env/env.js";
// fast-check arbitraries for schedules, workloads and faults.
export {
  clientsArb,
  cycleArb,
  DEFAULT_FAULT_CATEGORIES,
  FAULT_CATEGORIES,
  type FaultBounds,
  type FaultCategory,
  faultArb,
  faultsArb,
  type ScheduleArbOptions,
  scheduleArb,
  seedArb,
  type WorkloadBounds,
} from "./generators/index.js";
export { readHistoryFile, writeHistory } from "./history/jsonl.js";
export type { Op, OpType, ProcessId } from "./history/op.js";
export {
  defineLibraryLock,
  type LibraryClientContext,
  type LibraryEndpoint,
  type LibraryGrant,
  type LibraryLock,
  type LibraryLockClient,
} from "./locks/library-lock.js";
export type { AcquireOutcome, LockAlgorithm, LockHandle, LockRequest, ReleaseOutcome } from "./locks/lock.js";
export {
  definePlainLock,
  type PlainClientContext,
  type PlainGrant,
  type PlainLock,
  type PlainLockClient,
} from "./locks/plain-lock.js";
// Reports and the CI gate.
export { type HtmlReportInput, renderHtmlReport } from "./report/html.js";
export { writeReport } from "./report/write-report.js";
export { defineGateConfig, type GateConfigInput } from "./runner/gate/gate-config.js";
// Data: schedules, histories, verdicts.
export type { Fault, ResourceMode, Schedule, ScheduleOptions } from "./schedule/schedule.js";
export { scheduleSchema } from "./schedule/schedule.js";
export { listTargets, targetNames } from "./targets/index.js";
export type { Target } from "./targets/target.js";
