/** Number and node moves shared by the fault kinds' descriptors. */
import type { NodeRef } from "../schedule.js";

/**
 * Smaller values to try for an integer x ≥ min, biggest cut first: min, then x minus half,
 * a quarter, an eighth … of the distance, down to x − 1. Trying them in order is a binary
 * search for the smallest value that still fails (when failing is monotone in x).
 */
export function smallerInts(x: number, min: number): number[] {
  if (x <= min) return [];
  const out = [min];
  for (let d = Math.floor((x - min) / 2); d >= 1; d = Math.floor(d / 2)) out.push(x - d);
  return [...new Set(out)].filter((v) => v >= min && v < x);
}

/** Integers toward zero from either side. */
export function towardZero(x: number): number[] {
  const sign = x < 0 ? -1 : 1;
  return smallerInts(Math.abs(x), 0).map((v) => sign * v);
}

export function shrinkBy(x: number, by: number, min: number): number {
  return Math.max(min, x - by);
}

/** A timed fault `m` later, and `m` earlier if it is not at 0 already. */
export function shifted<F extends { at: number }>(f: F, m: number): F[] {
  return [{ ...f, at: f.at + m }, ...(f.at > 0 ? [{ ...f, at: shrinkBy(f.at, m, 0) }] : [])];
}

/** The client id of a `client:N` node. */
export function clientOf(ref: string): number | undefined {
  const m = /^client:(\d+)$/.exec(ref);
  return m === null ? undefined : Number(m[1]);
}

/** A node of a schedule with `clients` clients: client numbers beyond them fold onto existing ones. */
export function fitNode(ref: NodeRef, clients: number): NodeRef {
  const m = /^client:(\d+)$/.exec(ref);
  return m === null ? ref : `client:${Number(m[1]) % clients}`;
}
