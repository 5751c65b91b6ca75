/** Assertions on the resource's apply order (`seq`) that lockcheck's real resources record. */
import { expect } from "vitest";
import type { Op, WriteOp } from "../../src/history/op.js";

/**
 * Every accepted write's completion carries a seq, no other op does, and within a lock the seqs
 * are distinct; returns how many accepted writes there were.
 */
export function expectSeqOnAcceptedWrites(ops: readonly Op[], context: string): number {
  const seen = new Map<string, Set<bigint>>();
  let accepted = 0;
  for (const op of ops) {
    const seq = (op as WriteOp).seq;
    const isAccepted =
      op.process !== "nemesis" && op.f === "write" && op.type === "ok" && op.accepted !== false;
    if (!isAccepted) {
      expect(seq, context).toBeUndefined();
      continue;
    }
    accepted++;
    expect(typeof seq, context).toBe("bigint");
    const lock = (op as WriteOp).lock;
    const seqs = seen.get(lock) ?? new Set<bigint>();
    expect(seqs.has(seq!), context).toBe(false);
    seqs.add(seq!);
    seen.set(lock, seqs);
  }
  return accepted;
}
