/**
 * Reply batching: fewer drains of client code for calls a client makes together.
 *
 * After an event settles a client's wait the loop normally drains client code, so
 * that the client's reaction runs at that virtual instant (scheduler.ts). A client that sent
 * five requests at once and awaits them all (Redlock) reacts only to the last reply; draining
 * after each of the other four is wasted work. So a settle whose batch (the calls its client
 * made within one drain) still has calls out does not drain: its reactions run in whichever
 * drain comes next, and the client owes a drain until then. The batch's last settle drains
 * whatever is still owed first and only then settles, so the client reacts at the right
 * instant and in the order a strict run would have.
 *
 * This is exact only if a client does nothing while it owes a drain — if its code acts on a
 * partial batch (a quorum reached early), that action would run late. Every way client code
 * can touch the world (`now`, sleeps, calls, checkpoints, recording, finishing) checks, and
 * an action while owing marks the run late: `simulate` then runs the schedule again with a
 * drain after every settle. Either way the history is the strict one.
 */
import type { SimNode } from "./node.js";
import type { SimCore } from "./scheduler.js";
import { completeOp, type SimOp } from "./sim-op.js";

/** The calls one client made within one drain; `open` are still unsettled. */
export interface CallBatch {
  open: number;
}

/** Adds a call to its client's current batch. */
export function joinBatch(client: SimNode): CallBatch {
  noteAction(client);
  const core = client.core;
  let batch = client.batch;
  if (batch === null || client.batchDrain !== core.drains) {
    // A batch whose calls have all settled is never read again: reuse it.
    if (batch === null || batch.open > 0) {
      batch = { open: 0 };
      client.batch = batch;
    }
    client.batchDrain = core.drains;
  }
  batch.open++;
  return batch;
}

/**
 * How a call's settle proceeds: "drain" (settle, then drain, the usual way), "owe" (settle
 * without a drain; the client now owes one), "drain-first" (drain what the client owes, then
 * settle: call `deferSettle`).
 */
export type SettleMode = "drain" | "owe" | "drain-first";

export function settleMode(client: SimNode, batch: CallBatch): SettleMode {
  batch.open--;
  const core = client.core;
  if (core.strict) return "drain";
  if (batch.open > 0) {
    if (!client.owing) {
      client.owing = true;
      core.owing.push(client);
    }
    return "owe";
  }
  return client.owing ? "drain-first" : "drain";
}

/** A batch of its own for a call that is never batched with others (noted as an action). */
export function soloBatch(client: SimNode): CallBatch {
  noteAction(client);
  return { open: 1 };
}

/**
 * Settles `op`, a wait of `client`'s, with `value` as its batch asks: at once with a drain
 * after it, at once owing the drain, or after the drain the client owes.
 */
export function settleClient<V>(client: SimNode, batch: CallBatch, op: SimOp<V>, value: V): void {
  const core = client.core;
  switch (settleMode(client, batch)) {
    case "owe":
      completeOp(op, value);
      return;
    case "drain-first":
      deferSettle(core, () => {
        core.settled = true;
        completeOp(op, value);
      });
      return;
    default:
      core.settled = true;
      completeOp(op, value);
  }
}

/** Runs `settle` once the drain the client owes has run (at this same virtual instant). */
export function deferSettle(core: SimCore, settle: () => void): void {
  core.settled = true;
  core.afterDrain.push({ runAfterDrain: settle });
}

/** Client code touched the world: if it owed a drain, the run is late. */
export function noteAction(client: SimNode): void {
  if (client.owing) client.core.late = true;
}
