/**
 * The checker contract: a streaming fold over a history.
 *
 * A checker sees every op once, in history (index) order, through `step`, and then gives its
 * verdict through `finish`. This lets every O(n) checker run in one pass over a file that is
 * streamed from disk, without holding the history in memory.
 *
 * Contract for implementations:
 * - `step` is called with ops in increasing index order; it must not keep references that grow
 *   with the number of ops unless the checker's definition needs them (per-grant state is fine).
 * - Ops a checker does not understand (other locks' fields, unknown nemesis faults) are ignored.
 * - Input is a validated history (src/history/validate.ts): each client process has at most one
 *   open call, and a completion matches its invoke. Checkers rely on that to pair calls cheaply
 *   (the one-pass path runs them on millions of ops); on unvalidated input they never throw, but
 *   may pair calls wrongly. A completion whose process has no open invoke is ignored.
 * - A call still open at `finish` is treated like an `info` completion: it may or may not
 *   have taken effect, at any time after its invoke.
 * - `finish` is called once; the checker is not used afterwards.
 */
import type { OpFacts } from "../history/facts.js";
import type { Op } from "../history/op.js";
import type { Verdict } from "./verdict.js";

export interface Checker {
  /** Stable name, as given to `--checker` and in `Verdict.checker`. */
  readonly name: string;
  step(op: Op): void;
  /**
   * The fast path, same contract as `step`: the op's fields already read by the one-pass
   * reader (src/history/facts.ts), which may not have built the op itself (`facts.op`).
   * `facts` is reused for the next op: do not keep it.
   */
  stepFacts(facts: OpFacts): void;
  finish(): Verdict;
}

/** At most this many anomalies are listed per verdict; `stats.anomalies` counts them all. */
export const MAX_LISTED_ANOMALIES = 100;
