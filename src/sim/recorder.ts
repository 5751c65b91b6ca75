/**
 * The history as the simulator records it: every event stamped with true virtual time (in
 * integer nanoseconds) and the next index, never with a node's skewed clock.
 *
 * A completion repeats its invoke's fields (f, lock, grant, token, value) and adds the
 * outcome's, as Jepsen completions do. Calls still open when the run ends (their client
 * crashed, or the run hit its time limit) are completed as `info`.
 */
import type { NemesisF, Op } from "../history/op.js";
import type { ClientRecorder, CompletionFields, InvokeFields } from "../workload/client.js";
import { noteAction } from "./batch.js";
import type { SimNode } from "./node.js";
import type { SimCore } from "./scheduler.js";

export interface HistoryRecorder {
  readonly core: SimCore;
  readonly ops: Op[];
  /**
   * By call id (ids count up from 0): the invoke's process and fields while the call is open,
   * `undefined` once it completed. (Arrays rather than a Map: a Map this small shrinks and
   * grows its table as calls open and close, an allocation every few calls.)
   */
  readonly openProcess: (number | undefined)[];
  readonly openFields: (InvokeFields | undefined)[];
}

export function createHistoryRecorder(core: SimCore): HistoryRecorder {
  return { core, ops: [], openProcess: [], openFields: [] };
}

function nowNs(core: SimCore): number {
  return Math.round(core.now * 1e6);
}

/** `client`: the node whose code records (see batch.ts: recording is an action). */
export function clientRecorder(h: HistoryRecorder, process: number, client?: SimNode): ClientRecorder {
  return {
    invoke(fields) {
      if (client !== undefined) noteAction(client);
      const id = h.openProcess.length;
      h.openProcess.push(process);
      h.openFields.push(fields);
      // Object.assign rather than spread: the same properties in the same order, and about a
      // third faster for these small objects (a few percent of a simulated run).
      h.ops.push(
        Object.assign({ index: h.ops.length, time: nowNs(h.core), process, type: "invoke" }, fields) as Op,
      );
      return id;
    },
    complete(id, type, fields) {
      if (client !== undefined) noteAction(client);
      completeCall(h, id, type, fields);
    },
  };
}

function completeCall(
  h: HistoryRecorder,
  id: number,
  type: "ok" | "fail" | "info",
  fields: CompletionFields | undefined,
): void {
  const process = h.openProcess[id];
  if (process === undefined) throw new Error(`recorder: call ${id} completed twice or never invoked`);
  const invoked = h.openFields[id];
  h.openProcess[id] = undefined;
  h.openFields[id] = undefined;
  h.ops.push(
    Object.assign({ index: h.ops.length, time: nowNs(h.core), process, type }, invoked, fields) as Op,
  );
}

export function recordNemesis(
  h: HistoryRecorder,
  f: NemesisF,
  node: string | undefined,
  value: unknown,
): void {
  const op: Op =
    node === undefined
      ? { index: h.ops.length, time: nowNs(h.core), process: "nemesis", type: "info", f, value }
      : { index: h.ops.length, time: nowNs(h.core), process: "nemesis", type: "info", f, node, value };
  h.ops.push(op);
}

/** Completes every open call as `info`, with `reason(process)` as the error. */
export function closeOpenCalls(h: HistoryRecorder, reason: (process: number) => string): void {
  h.openProcess.forEach((process, id) => {
    if (process !== undefined) completeCall(h, id, "info", { error: reason(process) });
  });
}
