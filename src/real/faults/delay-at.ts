/**
 * delay-at: a client reached the point where the schedule delays one of its links. The delay
 * is made the way a timed delay of that link is (delay.ts), recorded with the checkpoint and
 * occurrence; the client waits until it is in place (client/link-requests.ts), so the write it
 * sends next goes through it.
 */
import { afterMsLabel, checkpointFaultPoint } from "../../schedule/faults/after-checkpoint.js";
import { delayedLink } from "../../schedule/faults/delay-at.js";
import type { Fault } from "../../schedule/schedule.js";
import type { FaultContext } from "./context.js";
import { startDelay } from "./delay.js";

type DelayAtFault = Extract<Fault, { kind: "delay-at" }>;

/** Starts each of `faults` (all of one client's point); returns the label and length of each that delays something. */
export async function startDelaysAt(
  ctx: FaultContext,
  faults: readonly DelayAtFault[],
): Promise<{ label: string; durationMs: number }[]> {
  const started: { label: string; durationMs: number }[] = [];
  for (const f of faults) {
    const delay = { ...delayedLink(f), extraMs: f.extraMs, durationMs: f.durationMs };
    const label = await startDelay(ctx, delay, checkpointFaultPoint(f));
    if (label !== null)
      started.push({ label: `${label}@${f.checkpoint}${afterMsLabel(f.afterMs)}`, durationMs: f.durationMs });
  }
  return started;
}
