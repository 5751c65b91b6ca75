/**
 * mutual-exclusion: the accepted writes of two lock holders interleaved while both believed
 * they held the lock. Needs no fencing tokens, so it also judges locks that hand out none.
 *
 * Definition. A call is an invoke plus its process's next completion. In the real-time order
 * of accepted writes (completion `ok` with `accepted` not false), each grant's writes must
 * form one contiguous block. Violation ("interleaved-writes") iff, for one lock, there are
 * accepted writes a and c of grant G1 and b of another grant G2 such that b was invoked after
 * a completed and c was invoked after b completed: G1 wrote, then G2, then G1 again. Only
 * such definite real-time orders count; overlapping calls could have been applied in any
 * order and are not flagged. A write that ended `info` (or is still open at the end) may have
 * been accepted: as c it makes the verdict "unknown" when no definite violation exists. It
 * cannot be a or b, which need a completion.
 *
 * Algorithm, O(n) time: per lock keep, for each grant, its earliest accepted-write completion
 * (the best a), and the two latest-invoked accepted completed writes of distinct grants (the
 * best b for any G1). At each write invoke of G1 the snapshot "is there a b of another grant
 * invoked after G1's first accepted write completed" decides the write's fate at completion.
 *
 * Anomaly "interleaved-writes": ops = [c completion, b completion, a completion]; time = when
 * c's acceptance was reported.
 */
import { formatMs } from "../src/history/describe.js";
import { emptyOpFacts, factsOf, type OpFacts } from "../src/history/facts.js";
import type { ClientId, Op } from "../src/history/op.js";
import { ProcessMap } from "../src/history/process-map.js";
import { type Checker, MAX_LISTED_ANOMALIES } from "./checker.js";
import { type Anomaly, certainOrPossible, type Verdict } from "./verdict.js";

interface DoneWrite {
  grant: string;
  process: ClientId;
  invokeIndex: number;
  index: number;
  time: number;
}

interface LockState {
  /** Earliest accepted write completion of each grant (grant ids are unique per lock). */
  firstDone: Map<string, DoneWrite>;
  /** Latest-invoked accepted completed write, and the latest of a different grant. */
  best1: DoneWrite | undefined;
  best2: DoneWrite | undefined;
}

interface OpenWrite {
  /** The invoke's lock state, grant, process, index and time. */
  state: LockState;
  grant: string;
  process: ClientId;
  invokeIndex: number;
  invokeTime: number;
  /** The grant's earliest accepted write when this one was invoked, if any. */
  first: DoneWrite | undefined;
  /** Set when G1 wrote (a), then another grant wrote (b), before this write was invoked. */
  witness: { a: DoneWrite; b: DoneWrite } | undefined;
}

function stateFor(states: Map<string, LockState>, lock: string): LockState {
  let s = states.get(lock);
  if (!s) {
    s = { firstDone: new Map(), best1: undefined, best2: undefined };
    states.set(lock, s);
  }
  return s;
}

/** `knownFirst`: the grant is known to have an earlier accepted write (saves a lookup). */
function recordAccepted(s: LockState, w: DoneWrite, knownFirst: boolean): void {
  if (!knownFirst && !s.firstDone.has(w.grant)) s.firstDone.set(w.grant, w);
  const { best1, best2 } = s;
  if (best1?.grant === w.grant) {
    if (w.invokeIndex > best1.invokeIndex) s.best1 = w;
  } else if (!best1 || w.invokeIndex > best1.invokeIndex) {
    s.best2 = best1;
    s.best1 = w;
  } else if (!best2 || w.invokeIndex > best2.invokeIndex) {
    s.best2 = w;
  }
}

function explain(c: OpenWrite, index: number, time: number, a: DoneWrite, b: DoneWrite, definite: boolean) {
  const outcome = definite ? "was accepted" : "may have been accepted (its outcome is unknown)";
  return (
    `Client ${c.process} (grant ${c.grant}) wrote at ${formatMs(a.time)} (op ${a.index}), then client ` +
    `${b.process} (grant ${b.grant}) wrote at ${formatMs(b.time)} (op ${b.index}), then client ${c.process} ` +
    `wrote again at ${formatMs(time)} (op ${index}) and it ${outcome}: the two holders' writes interleaved, so ` +
    "both believed they held the lock at the same time."
  );
}

export function createMutualExclusionChecker(): Checker {
  const states = new Map<string, LockState>();
  /** Open write calls, by process. */
  const open = new ProcessMap<OpenWrite>();
  const violations: Anomaly[] = [];
  const possible: Anomaly[] = [];
  let violationCount = 0;
  let possibleCount = 0;

  function anomaly(w: OpenWrite, index: number, time: number, definite: boolean): Anomaly {
    const { a, b } = w.witness!;
    return {
      kind: definite ? "interleaved-writes" : "possible-interleaved-writes",
      ops: [index, b.index, a.index],
      explanation: explain(w, index, time, a, b, definite),
      time,
    };
  }

  function maybeAccepted(w: OpenWrite, index: number, time: number): void {
    if (!w.witness) return;
    possibleCount++;
    if (possible.length < MAX_LISTED_ANOMALIES) possible.push(anomaly(w, index, time, false));
  }

  const scratch = emptyOpFacts();
  // Most histories have one lock: remember the last one looked up.
  let lastLock = "";
  let lastState: LockState | undefined;
  /** Per process: the first accepted write of the grant its last write named, and that grant's lock state. */
  const firstCache = new ProcessMap<{ first: DoneWrite; state: LockState }>();
  function stepFacts(op: OpFacts): void {
    if (op.f !== "write") return;
    if (op.type === "invoke") {
      const s = op.lock === lastLock && lastState !== undefined ? lastState : stateFor(states, op.lock);
      lastLock = op.lock;
      lastState = s;
      const grant = op.grant as string;
      // A holder's writes name the same grant, whose first write never changes once known.
      const cached = firstCache.get(op.process);
      const a =
        cached !== undefined && cached.first.grant === grant && cached.state === s
          ? cached.first
          : s.firstDone.get(grant);
      if (a !== undefined && a !== cached?.first) firstCache.set(op.process, { first: a, state: s });
      const b = s.best1?.grant !== grant ? s.best1 : s.best2;
      const witness = a && b && b.invokeIndex > a.index ? { a, b } : undefined;
      open.set(op.process, {
        state: s,
        grant,
        process: op.process,
        invokeIndex: op.index,
        invokeTime: op.time,
        first: a,
        witness,
      });
      return;
    }
    const w = open.get(op.process);
    if (!w) return;
    open.set(op.process, undefined);
    if (op.type === "info") {
      maybeAccepted(w, op.index, op.time);
      return;
    }
    if (op.type !== "ok" || op.accepted === false) return;
    if (w.witness) {
      violationCount++;
      if (violations.length < MAX_LISTED_ANOMALIES) violations.push(anomaly(w, op.index, op.time, true));
    }
    recordAccepted(
      w.state,
      { grant: w.grant, process: op.process, invokeIndex: w.invokeIndex, index: op.index, time: op.time },
      w.first !== undefined,
    );
  }

  return {
    name: "mutual-exclusion",
    step(op: Op): void {
      stepFacts(factsOf(op, scratch));
    },
    stepFacts,
    finish(): Verdict {
      for (const w of open.values()) maybeAccepted(w, w.invokeIndex, w.invokeTime);
      open.clear();
      return certainOrPossible(
        "mutual-exclusion",
        { count: violationCount, listed: violations },
        { count: possibleCount, listed: possible },
        { interleavedWrites: violationCount, possibleInterleavedWrites: possibleCount },
      );
    },
  };
}
