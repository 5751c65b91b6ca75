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
 * Resource-side order. When every accepted write of a lock carries `seq` (the resource's own
 * apply order, see WriteOp.seq), that lock is judged by it: accepted writes a, c of G1 and b of
 * G2 with seq(a) < seq(b) < seq(c) are a violation whatever the client-observed times say, and
 * none is one otherwise; an `info` (or open) write c may have been accepted after such a, b when
 * b completed before c was invoked and seq(a) < seq(b) ("unknown"). A lock with any accepted
 * write lacking `seq` (every lock of a history without it) keeps the real-time rule above.
 *
 * Applied, unseen. An `info` write with `seq` was applied by the resource although its client
 * never learned it (see stale-write.ts). It counts as accepted: under the seq rule as any write
 * with `seq`; under the real-time rule as c only (a definite violation, no longer "unknown"),
 * never as a or b, which need a completion.
 *
 * Algorithm, O(n) time: per lock keep, for each grant, its earliest accepted-write completion
 * (the best a), and the two latest-invoked accepted completed writes of distinct grants (the
 * best b for any G1). At each write invoke of G1 the snapshot "is there a b of another grant
 * invoked after G1's first accepted write completed" decides the write's fate at completion.
 *
 * For a lock with `seq`, its accepted writes are also kept and, at the end, swept in seq order
 * (O(k log k) for k writes); the real-time anomalies of a lock judged by seq are dropped.
 *
 * Anomaly "interleaved-writes": ops = [c completion, b completion, a completion]; time = when
 * c's acceptance was reported.
 */
import { formatMs } from "../history/describe.js";
import { emptyOpFacts, factsOf, type OpFacts } from "../history/facts.js";
import type { ClientId, Op } from "../history/op.js";
import { ProcessMap } from "../history/process-map.js";
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
  /** Accepted completed writes, and those of them that carried seq. */
  accepted: number;
  sequenced: SequencedWrite[];
  /** Highest-seq accepted completed write, and the highest of a different grant. */
  seqBest1: SequencedWrite | undefined;
  seqBest2: SequencedWrite | undefined;
  /** Writes that ended info or stayed open, for the seq rule's "unknown". */
  uncertain: { w: OpenWrite; index: number; time: number }[];
  /** Real-time anomalies found for this lock (dropped if it is judged by seq). */
  violations: number;
  possibles: number;
}

interface SequencedWrite {
  seq: bigint;
  write: DoneWrite;
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
  /** The highest-seq accepted write of another grant completed before the invoke. */
  seqB: SequencedWrite | undefined;
}

function stateFor(states: Map<string, LockState>, lock: string): LockState {
  let s = states.get(lock);
  if (!s) {
    s = {
      firstDone: new Map(),
      best1: undefined,
      best2: undefined,
      accepted: 0,
      sequenced: [],
      seqBest1: undefined,
      seqBest2: undefined,
      uncertain: [],
      violations: 0,
      possibles: 0,
    };
    states.set(lock, s);
  }
  return s;
}

/** Keeps `w` (with seq) for the sweep, and as a candidate b for later writes' seq rule. */
function recordSequenced(s: LockState, w: SequencedWrite): void {
  s.sequenced.push(w);
  const { seqBest1: best1, seqBest2: best2 } = s;
  if (best1?.write.grant === w.write.grant) {
    if (w.seq > best1.seq) s.seqBest1 = w;
  } else if (!best1 || w.seq > best1.seq) {
    s.seqBest2 = best1;
    s.seqBest1 = w;
  } else if (!best2 || w.seq > best2.seq) {
    s.seqBest2 = w;
  }
}

/** `knownFirst`: the grant is known to have an earlier accepted write (saves a lookup). */
function recordAccepted(s: LockState, w: DoneWrite, knownFirst: boolean): void {
  s.accepted++;
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

function explainBySeq(
  c: { process: ClientId; grant: string },
  time: number,
  index: number,
  a: SequencedWrite,
  b: SequencedWrite,
  definite: boolean,
): string {
  const outcome = definite
    ? "was applied after both"
    : `was sent at ${formatMs(time)} (op ${index}), after client ${b.write.process}'s write completed, and may have been applied (its outcome is unknown)`;
  return (
    `In the resource's own apply order, client ${c.process} (grant ${c.grant}) wrote (op ${a.write.index}, write #${a.seq}), ` +
    `then client ${b.write.process} (grant ${b.write.grant}) wrote (op ${b.write.index}, write #${b.seq}), then client ` +
    `${c.process} wrote again${definite ? ` (op ${index})` : ""}, which ${outcome}: the two holders' writes interleaved, so both ` +
    "believed they held the lock at the same time."
  );
}

function explain(
  c: OpenWrite,
  index: number,
  time: number,
  a: DoneWrite,
  b: DoneWrite,
  definite: boolean,
  unseen: boolean,
) {
  const outcome = unseen
    ? "was applied (its client gave up on it, but the resource's log has it)"
    : definite
      ? "was accepted"
      : "may have been accepted (its outcome is unknown)";
  return (
    `Client ${c.process} (grant ${c.grant}) wrote at ${formatMs(a.time)} (op ${a.index}), then client ` +
    `${b.process} (grant ${b.grant}) wrote at ${formatMs(b.time)} (op ${b.index}), then client ${c.process} ` +
    `wrote again at ${formatMs(time)} (op ${index}) and it ${outcome}: the two holders' writes interleaved, so ` +
    "both believed they held the lock at the same time."
  );
}

/** Removes the listed anomalies of lock `s` (kept in step with their locks in `states`). */
function dropListed(listed: Anomaly[], states: LockState[], s: LockState): void {
  let kept = 0;
  for (let i = 0; i < listed.length; i++) {
    if (states[i] === s) continue;
    listed[kept] = listed[i]!;
    states[kept] = states[i]!;
    kept++;
  }
  listed.length = kept;
  states.length = kept;
}

export function createMutualExclusionChecker(): Checker {
  const states = new Map<string, LockState>();
  /** Open write calls, by process. */
  const open = new ProcessMap<OpenWrite>();
  const violations: Anomaly[] = [];
  const possible: Anomaly[] = [];
  // The lock of each listed anomaly, in the same order.
  const violationStates: LockState[] = [];
  const possibleStates: LockState[] = [];
  let violationCount = 0;
  let possibleCount = 0;

  function anomaly(w: OpenWrite, index: number, time: number, definite: boolean, unseen = false): Anomaly {
    const { a, b } = w.witness!;
    return {
      kind: definite ? "interleaved-writes" : "possible-interleaved-writes",
      ops: [index, b.index, a.index],
      explanation: explain(w, index, time, a, b, definite, unseen),
      time,
    };
  }

  function maybeAccepted(w: OpenWrite, index: number, time: number): void {
    // Kept only while the lock may still be judged by seq (no accepted write without it yet).
    if (w.state.accepted === w.state.sequenced.length) w.state.uncertain.push({ w, index, time });
    if (!w.witness) return;
    possibleCount++;
    w.state.possibles++;
    if (possible.length < MAX_LISTED_ANOMALIES) {
      possible.push(anomaly(w, index, time, false));
      possibleStates.push(w.state);
    }
  }

  /** A definite real-time violation at `index` if `w` has a witness (w is c). */
  function flagIfWitnessed(w: OpenWrite, index: number, time: number, unseen: boolean): void {
    if (!w.witness) return;
    violationCount++;
    w.state.violations++;
    if (violations.length < MAX_LISTED_ANOMALIES) {
      violations.push(anomaly(w, index, time, true, unseen));
      violationStates.push(w.state);
    }
  }

  /**
   * An `info` write the resource applied (see the top): c of the real-time rule, and a write
   * of the seq rule; not a best b for later writes, its completion being unknown.
   */
  function appliedUnseen(w: OpenWrite, index: number, time: number, seq: bigint): void {
    flagIfWitnessed(w, index, time, true);
    const done: DoneWrite = { grant: w.grant, process: w.process, invokeIndex: w.invokeIndex, index, time };
    w.state.accepted++;
    w.state.sequenced.push({ seq, write: done });
  }

  /** Replaces the real-time judgement of lock `s` by the resource's apply order (see the top). */
  function judgeBySeq(s: LockState): void {
    violationCount -= s.violations;
    possibleCount -= s.possibles;
    dropListed(violations, violationStates, s);
    dropListed(possible, possibleStates, s);
    const ws = s.sequenced.sort((x, y) => (x.seq < y.seq ? -1 : x.seq > y.seq ? 1 : 0));
    // A grant is closed once another grant's write follows its writes: a = its last write, b = that one.
    const closed = new Map<string, { a: SequencedWrite; b: SequencedWrite }>();
    const first = new Map<string, SequencedWrite>();
    let prev: SequencedWrite | undefined;
    for (const w of ws) {
      const g = w.write.grant;
      if (!first.has(g)) first.set(g, w);
      if (prev !== undefined && prev.write.grant !== g && !closed.has(prev.write.grant))
        closed.set(prev.write.grant, { a: prev, b: w });
      prev = w;
      const witness = closed.get(g);
      if (witness === undefined) continue;
      violationCount++;
      if (violations.length < MAX_LISTED_ANOMALIES) {
        violations.push({
          kind: "interleaved-writes",
          ops: [w.write.index, witness.b.write.index, witness.a.write.index],
          explanation: explainBySeq(w.write, w.write.time, w.write.index, witness.a, witness.b, true),
          time: w.write.time,
        });
      }
    }
    for (const u of s.uncertain) {
      const a = first.get(u.w.grant);
      const b = u.w.seqB;
      if (a === undefined || b === undefined || !(a.seq < b.seq)) continue;
      possibleCount++;
      if (possible.length < MAX_LISTED_ANOMALIES) {
        possible.push({
          kind: "possible-interleaved-writes",
          ops: [u.index, b.write.index, a.write.index],
          explanation: explainBySeq(u.w, u.w.invokeTime, u.w.invokeIndex, a, b, false),
          time: u.time,
        });
      }
    }
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
      const seqB = s.seqBest1 === undefined || s.seqBest1.write.grant !== grant ? s.seqBest1 : s.seqBest2;
      open.set(op.process, {
        state: s,
        grant,
        process: op.process,
        invokeIndex: op.index,
        invokeTime: op.time,
        first: a,
        witness,
        seqB,
      });
      return;
    }
    const w = open.get(op.process);
    if (!w) return;
    open.set(op.process, undefined);
    if (op.type === "info") {
      if (op.seq === undefined) maybeAccepted(w, op.index, op.time);
      else appliedUnseen(w, op.index, op.time, op.seq);
      return;
    }
    if (op.type !== "ok" || op.accepted === false) return;
    flagIfWitnessed(w, op.index, op.time, false);
    const done: DoneWrite = {
      grant: w.grant,
      process: op.process,
      invokeIndex: w.invokeIndex,
      index: op.index,
      time: op.time,
    };
    recordAccepted(w.state, done, w.first !== undefined);
    if (op.seq !== undefined) recordSequenced(w.state, { seq: op.seq, write: done });
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
      for (const s of states.values())
        if (s.sequenced.length > 0 && s.sequenced.length === s.accepted) judgeBySeq(s);
      return certainOrPossible(
        "mutual-exclusion",
        { count: violationCount, listed: violations },
        { count: possibleCount, listed: possible },
        { interleavedWrites: violationCount, possibleInterleavedWrites: possibleCount },
      );
    },
  };
}
