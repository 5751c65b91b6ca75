/** Messages between the coordinator of a parallel search and its worker threads. */

import type { FaultBounds, FaultCategory, WorkloadBounds } from "../../generators/bounds.js";
import type { RunPosition } from "../../generators/run-position.js";
import type { ResourceMode, ScheduleOptions } from "../../schedule/schedule.js";

/** What every worker of one search gets at its start (structured-cloneable). */
export interface SearchSetup {
  /** A target name or `module:<absolute path>` (target-spec.ts). */
  target: string;
  resource: ResourceMode;
  seed: number;
  faults: readonly FaultCategory[];
  options?: Partial<ScheduleOptions>;
  workload?: Partial<WorkloadBounds>;
  faultBounds?: Partial<Omit<FaultBounds, "categories">>;
}

/**
 * A thread serves one search at a time: `search` starts one, then come its blocks (`count` runs
 * from `from`, the seed's generator state at the block's start, run-position.ts), one at a
 * time, then `release`: the block in progress stops at its next run and the thread answers
 * `released`, after which nothing of that search is sent.
 */
export type ToWorker =
  | { type: "search"; setup: SearchSetup }
  | { type: "block"; from: RunPosition; count: number }
  | { type: "release" };

export type FromWorker =
  /** Worker is set up for the search and takes blocks. */
  | { type: "ready" }
  /** The first `passed` runs of the block at `start` passed. */
  | { type: "progress"; start: number; passed: number }
  /** The block at `start` finished: all passed, or the run at `failedAt` failed (or threw). */
  | { type: "done"; start: number; failedAt: number | null }
  /** The worker cannot search (e.g. its target did not load). */
  | { type: "fatal"; message: string }
  /** The search's work has stopped; the thread takes a new search. */
  | { type: "released" };
