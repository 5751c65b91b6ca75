/**
 * A shrink on "real servers" that are the simulator (`runOnServers`), one candidate at a time,
 * of `pausedHolderAndIdlers`: for tests of what shrink-real.ts does around its pass.
 */
import type { Op } from "../../src/history/op.js";
import { probeViolation } from "../../src/runner/same-violation.js";
import type { ShrinkBudget } from "../../src/runner/shrink/shrink.js";
import { shrinkOnRealServers } from "../../src/runner/shrink/shrink-real.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { pausedHolderAndIdlers, target } from "./schedules.js";

export const lease = target("sim:lease");
export const found = pausedHolderAndIdlers();

export async function shrinkFoundOn(runOnServers: (s: Schedule) => Promise<Op[]>, budget?: ShrinkBudget) {
  const evidence = (await probeViolation(lease, found, "stale-write")).evidence!;
  return shrinkOnRealServers({ ...lease, deterministic: false }, found, {
    kind: "stale-write",
    marginMs: 50,
    simFirst: false,
    runs: 2,
    parallel: 1,
    evidence,
    runOnServers,
    ...(budget === undefined ? {} : { budget }),
  });
}
