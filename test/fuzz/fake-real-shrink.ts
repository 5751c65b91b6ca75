/**
 * Shrinks on "real servers" that are the simulator (`runOnServers`): the real pass of
 * shrink-real.ts, for tests of what it does. `shrinkOnSimServers` takes any failing schedule;
 * `shrinkFoundOn` shrinks `pausedHolderAndIdlers`, one candidate at a time.
 */
import type { Op } from "../../src/history/op.js";
import { probeViolation } from "../../src/runner/same-violation.js";
import type { ShrinkBudget } from "../../src/runner/shrink/shrink.js";
import { type RealShrinkOptions, shrinkOnRealServers } from "../../src/runner/shrink/shrink-real.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import type { Target } from "../../src/targets/target.js";
import { pausedHolderAndIdlers, target } from "./schedules.js";

export const lease = target("sim:lease");
export const found = pausedHolderAndIdlers();

/**
 * Shrinks `failing` (a stale write on `t`) with the real pass alone (no simulator twin, margins
 * of 50 ms), its first failing run taken from `t` itself; `o` sets the rest.
 */
export async function shrinkOnSimServers(
  t: Target,
  failing: Schedule,
  o: Omit<RealShrinkOptions, "kind" | "marginMs" | "simFirst" | "evidence"> &
    Required<Pick<RealShrinkOptions, "runOnServers">>,
) {
  const evidence = (await probeViolation(t, failing, "stale-write")).evidence!;
  return shrinkOnRealServers({ ...t, deterministic: false }, failing, {
    kind: "stale-write",
    marginMs: 50,
    simFirst: false,
    evidence,
    ...o,
  });
}

export async function shrinkFoundOn(runOnServers: (s: Schedule) => Promise<Op[]>, budget?: ShrinkBudget) {
  return shrinkOnSimServers(lease, found, {
    runs: 2,
    parallel: 1,
    runOnServers,
    ...(budget === undefined ? {} : { budget }),
  });
}
