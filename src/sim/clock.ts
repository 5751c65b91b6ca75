/**
 * A node's clocks. Every node (client, lock server, resource) has two clocks, modelled on
 * what real systems use:
 *
 * - a monotonic clock (CLOCK_MONOTONIC): what timers, sleeps, call timeouts, Raft heartbeats
 *   and elections, etcd lease expiry and ZooKeeper session expiry run on. Drift changes its
 *   rate; clock jumps do not touch it (Node's setTimeout and Go's timers are monotonic).
 * - a wall clock (CLOCK_REALTIME) = monotonic + an offset: what a client's `now()` returns
 *   (so client-side validity arithmetic follows the client's wall clock) and what Redis key
 *   expiry compares against (Redis expires keys by wall clock). A clock jump moves the offset;
 *   drift applies to it as well, because it is derived from the monotonic clock.
 *
 * Readings are functions of true (virtual) time `t`, piecewise linear: between drift changes
 * mono(t) = mono0 + (t − t0)·(1 + rate). All clocks read 0 at the start of a run.
 */

export interface NodeClock {
  /** True time of the last rate change. */
  t0: number;
  /** Monotonic reading at t0. */
  mono0: number;
  /** The clock runs at (1 + rate) × true speed; rate > −1. */
  rate: number;
  /** wall = mono + wallOffset. */
  wallOffset: number;
}

export function createClock(): NodeClock {
  return { t0: 0, mono0: 0, rate: 0, wallOffset: 0 };
}

export function monoAt(c: NodeClock, t: number): number {
  return c.rate === 0 ? c.mono0 + (t - c.t0) : c.mono0 + (t - c.t0) * (1 + c.rate);
}

export function wallAt(c: NodeClock, t: number): number {
  return monoAt(c, t) + c.wallOffset;
}

/** Step the wall clock by deltaMs (NTP step, manual change); monotonic time is untouched. */
export function jumpClock(c: NodeClock, deltaMs: number): void {
  c.wallOffset += deltaMs;
}

/** From true time t on, run at (1 + rate) × true speed. */
export function setClockRate(c: NodeClock, t: number, rate: number): void {
  c.mono0 = monoAt(c, t);
  c.t0 = t;
  c.rate = rate;
}

/**
 * The monotonic reading `waitMs` after true time `t`: a deadline. A wait too short for the clock
 * to tell (a hair left of an earlier deadline) still ends after `t`, never at that very
 * instant: code that waits for what is left would otherwise wait at `t` for ever.
 */
export function monoDeadline(c: NodeClock, t: number, waitMs: number): number {
  const mono = monoAt(c, t);
  const end = mono + waitMs;
  return waitMs > 0 && end <= mono ? nextUp(mono) : end;
}

/**
 * The first true time at which the monotonic clock reads `mono` or more (never before `now`).
 * Rounding can put the exact quotient a hair early, where the clock still reads less: a timer
 * fired there finds its deadline not reached, and code that waits for what is left (a few
 * 1e-13 ms) would fire again at the same instant, for ever. So the time is stepped up to where
 * the reading is there.
 */
export function trueTimeOfMono(c: NodeClock, mono: number, now: number): number {
  const exact = c.rate === 0 ? c.t0 + (mono - c.mono0) : c.t0 + (mono - c.mono0) / (1 + c.rate);
  let t = Math.max(now, exact);
  while (monoAt(c, t) < mono) t = nextUp(t);
  return t;
}

const bits = new Float64Array(1);
const bitsAsInt = new BigInt64Array(bits.buffer);

/** The least double greater than `x` (x ≥ 0). */
function nextUp(x: number): number {
  bits[0] = x;
  bitsAsInt[0]! += 1n;
  return bits[0]!;
}
