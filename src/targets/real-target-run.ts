/** What a real run gives back through the Target interface (`run`, and a session's `run`). */
import type { RealRun } from "../real/run.js";
import type { TargetRun } from "./target.js";

/** Its history, counters, and the warning line of each client your library ended. */
export function targetRunOf(r: RealRun): TargetRun {
  const crashes = r.crashedByLibrary.map((c) => c.warning);
  return { ops: r.ops, stats: { ...r.stats }, ...(crashes.length === 0 ? {} : { libraryCrashes: crashes }) };
}
