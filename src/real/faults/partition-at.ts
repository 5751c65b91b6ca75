/**
 * partition-at: a client reached the checkpoint hit where the schedule cuts it off from some
 * nodes. The cuts are partitions of that client from those nodes, made the way a timed
 * partition is (partition.ts), recorded with the checkpoint and occurrence; the client waits
 * until they are in place (client/link-requests.ts).
 */
import { afterMsLabel, checkpointFaultPoint } from "../../schedule/faults/after-checkpoint.js";
import { partitionAtSides } from "../../schedule/faults/partition-at.js";
import type { Fault } from "../../schedule/schedule.js";
import type { FaultContext } from "./context.js";
import { startPartition } from "./partition.js";

type PartitionAtFault = Extract<Fault, { kind: "partition-at" }>;

/** Starts each of `faults` (all of one client's hit); returns the label and length of each that cut something. */
export async function startPartitionsAt(
  ctx: FaultContext,
  faults: readonly PartitionAtFault[],
): Promise<{ label: string; durationMs: number }[]> {
  const started: { label: string; durationMs: number }[] = [];
  for (const f of faults) {
    const cut = { ...partitionAtSides(f), durationMs: f.durationMs };
    const label = await startPartition(ctx, cut, checkpointFaultPoint(f));
    if (label !== null)
      started.push({ label: `${label}@${f.checkpoint}${afterMsLabel(f.afterMs)}`, durationMs: f.durationMs });
  }
  return started;
}
