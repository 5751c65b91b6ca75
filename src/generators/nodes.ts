/**
 * Node references for faults. Generated faults name nodes out of the largest world the bounds
 * allow (client:0 … client:maxClients-1); `fitFaultsToClients` later folds them onto the
 * clients a schedule actually has, so shrinking the client list never leaves a fault that
 * names a missing client.
 */
import fc from "fast-check";
import type { NodeRef } from "../schedule/schedule.js";

export function clientRefs(count: number): NodeRef[] {
  return Array.from({ length: count }, (_, i) => `client:${i}`);
}

export function serverRefs(count: number, leader: boolean): NodeRef[] {
  const refs: NodeRef[] = Array.from({ length: count }, (_, i) => `server:${i}`);
  return leader ? [...refs, "server:leader"] : refs;
}

/** One of `refs`; shrinks toward the first. */
export function nodeArb(refs: readonly NodeRef[]): fc.Arbitrary<NodeRef> {
  if (refs.length === 0) throw new RangeError("nodeArb: no nodes to choose from");
  return fc.constantFrom(...refs);
}

/** A non-empty set of distinct nodes from `refs`, at most `max`; shrinks toward fewer. */
export function nodeSetArb(refs: readonly NodeRef[], max: number): fc.Arbitrary<NodeRef[]> {
  return fc.uniqueArray(nodeArb(refs), { minLength: 1, maxLength: Math.max(1, Math.min(max, refs.length)) });
}
