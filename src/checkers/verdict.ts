/**
 * What a checker concludes about a history.
 *
 * `valid` is three-valued as in Jepsen: `true` (no violation is possible given what was
 * observed), `false` (a violation certainly happened; `anomalies` say where), `"unknown"`
 * (a violation depends on `info` operations whose outcome nobody knows, or the checker ran
 * out of its time or memory budget).
 */
export type Validity = true | false | "unknown";

/** One thing that went wrong, pointing at history indices so reports can draw it. */
export interface Anomaly {
  /** Stable machine name, e.g. "stale-write", "token-reuse", "interleaved-writes". */
  kind: string;
  /** History indices of the ops involved, most important first (e.g. the stale write, then the newer write). */
  ops: number[];
  /** One or two sentences a reviewer understands without reading code. */
  explanation: string;
  /** When it happened (ns since start), if one moment captures it. */
  time?: number;
  /**
   * For "not-linearizable": the longest linearizable prefix the checker found, as the history
   * indices of the ops' invokes in linearization order, so a report can draw it.
   */
  partialLinearization?: number[];
}

export type StatValue = number | string | boolean | null;

export interface Verdict {
  /** Which checker produced it, e.g. "stale-write". */
  checker: string;
  valid: Validity;
  anomalies: Anomaly[];
  /** Counts and measurements; informational. */
  stats: Record<string, StatValue>;
}

/** Combines verdicts: false wins over unknown, unknown over true. */
export function combineValidity(vs: readonly Validity[]): Validity {
  if (vs.includes(false)) return false;
  if (vs.includes("unknown")) return "unknown";
  return true;
}

/**
 * The verdict of a checker that finds certain violations and possible ones (those that hang
 * on `info` writes): invalid with the certain ones if there are any, else unknown with the
 * possible ones, else valid.
 */
export function certainOrPossible(
  checker: string,
  certain: { count: number; listed: Anomaly[] },
  possible: { count: number; listed: Anomaly[] },
  stats: Record<string, StatValue>,
): Verdict {
  const valid: Validity = certain.count > 0 ? false : possible.count > 0 ? "unknown" : true;
  return { checker, valid, anomalies: valid === false ? certain.listed : possible.listed, stats };
}
