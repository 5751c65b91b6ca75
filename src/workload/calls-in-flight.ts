/**
 * A client recorder that also numbers each invoke within its call kind (the n-th acquire, the
 * n-th write…) and knows which calls are still open: what a pause inside a call needs, in
 * both worlds (src/sim/pause-in-call.ts, src/real/client/pause-in-call.ts).
 */
import type { CallKind } from "../schedule/schedule.js";
import type { ClientRecorder } from "./client.js";

/** Called at each invoke with its call kind, its 0-based number within that kind, and whether it is still open. */
export type OnInvoke = (call: CallKind, occurrence: number, stillOpen: () => boolean) => void;

export function countingInvokes(rec: ClientRecorder, onInvoke: OnInvoke): ClientRecorder {
  const invoked = new Map<CallKind, number>();
  const open = new Set<number>();
  return {
    invoke(fields) {
      const id = rec.invoke(fields);
      open.add(id);
      const occurrence = invoked.get(fields.f) ?? 0;
      invoked.set(fields.f, occurrence + 1);
      onInvoke(fields.f, occurrence, () => open.has(id));
      return id;
    },
    complete(id, type, fields) {
      open.delete(id);
      rec.complete(id, type, fields);
    },
  };
}
