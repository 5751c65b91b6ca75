/**
 * What the front ends list and default to: target names, fault categories, resource modes,
 * checkers, linearizability models, the default timing margin and worker count. The cli's
 * flags and help texts read them here, so each list is written once, below.
 */
import { partitionModeSchema, resourceModeSchema } from "../schedule/schedule.js";

export { CHECKER_NAMES, type CheckerName, isCheckerName } from "../checkers/index.js";
export { isLinModelName, LIN_MODEL_NAMES } from "../checkers/linearizable/model-names.js";
export { MODULE_PREFIX } from "../custom/module-target.js";
export { DEFAULT_FAULT_CATEGORIES, FAULT_CATEGORIES, type FaultCategory } from "../generators/bounds.js";
export { CLUSTERS, type Cluster } from "../real/cluster-kind.js";
export { DEFAULT_MARGIN_MS } from "../runner/shrink/robust-failure.js";
export { defaultWorkers } from "../runner/workers/pool.js";
export type { PartitionMode, ResourceMode } from "../schedule/schedule.js";
export { targetNames } from "../targets/index.js";
export { REAL_TARGETS } from "../targets/real.js";
export type { ServerPlacement } from "../targets/target.js";

/** The resource modes (`--resource`): unfenced, fenced, fenced-txn. */
export const RESOURCE_MODES = resourceModeSchema.options;

/** What a two-way partition does to TCP on real servers (`--partition-mode`): cut, blackhole. */
export const PARTITION_MODES = partitionModeSchema.options;
