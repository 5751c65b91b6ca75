/**
 * Writes whose client gave up on them but which the resource applied all the same: a write
 * delayed in the network past its client's timeout (`info`) that arrived later, perhaps after a
 * newer holder's write — Kleppmann's delayed packet. The client never learns it; the resource's
 * own log does. A world that can read that log (the simulator's resource, the real Redis
 * resource's list of values) marks those completions with the write's apply order `seq`, and
 * the checkers count them as applied (see src/checkers/stale-write.ts).
 */
import type { Op, WriteOp } from "./op.js";

/** The apply order of the write that carried `value` to `lock`, if the resource applied it. */
export type AppliedSeq = (lock: string, value: unknown) => bigint | undefined;

/** An `info` write completion with no `seq` yet: a write whose fate only the resource knows. */
function isUnresolved(op: Op): op is WriteOp {
  return op.process !== "nemesis" && op.f === "write" && op.type === "info" && op.seq === undefined;
}

/** The `info` write completions with no `seq` yet: their lock and value. */
export function unresolvedWrites(ops: readonly Op[]): { lock: string; value: unknown }[] {
  return ops.filter(isUnresolved).map((op) => ({ lock: op.lock, value: op.value }));
}

/**
 * Puts `seq` on each `info` write completion that `applied` knows, in place; returns how many.
 * Only `info`: an `ok` carries its own seq, and a `fail` is a write that certainly never ran.
 */
export function markAppliedWrites(ops: Op[], applied: AppliedSeq): number {
  let marked = 0;
  for (const [i, op] of ops.entries()) {
    if (!isUnresolved(op)) continue;
    const seq = applied(op.lock, op.value);
    if (seq === undefined) continue;
    ops[i] = { ...op, seq };
    marked++;
  }
  return marked;
}
