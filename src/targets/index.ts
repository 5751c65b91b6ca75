/**
 * Every target lockcheck knows, by name. Each world adds its own list here (one import and
 * one loop) — e.g. the real-server targets of src/targets/real.ts.
 */
import { REAL_TARGETS } from "./real.js";
import { registerTarget } from "./registry.js";
import { SIM_TARGETS } from "./sim.js";

for (const t of SIM_TARGETS) registerTarget(t);
for (const t of REAL_TARGETS) registerTarget(t);

export { findTarget, listTargets, registerTarget, targetNames } from "./registry.js";
export { SIM_BASE_OPTIONS, SIM_TARGETS } from "./sim.js";
export type { Target, TargetRun } from "./target.js";
