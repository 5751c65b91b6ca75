/**
 * stale-write: the resource accepted a write from an older grant after it had accepted one
 * from a newer grant — "two unfenced writes both accepted". This is lockcheck's core check.
 *
 * Definition. A call is an invoke plus its process's next completion. Grant rank ("newer") is
 * per lock: by token (BigInt) when both grants have one, else by acquisition order (the index
 * of the acquire `ok`); see src/history/grants.ts. Let w_new be an accepted write (completion
 * `ok` with `accepted` not false) of grant G_new, and w_old an accepted write of an older grant
 * G_old of the same lock. The pair is a violation iff w_old was invoked after w_new completed:
 * in real time the resource certainly accepted w_new first. Concurrent pairs are not flagged
 * (a fenced resource may have applied w_old first). A write that ended `info` (or is still
 * open when the history ends) may have been accepted: if it would be w_old of such a pair, the
 * verdict is "unknown" unless some pair is a definite violation. An `info` write can never be
 * w_new: it has no completion, so nothing is certainly after it.
 *
 * Resource-side order. When both writes of a pair carry `seq` (the resource's own apply order,
 * see WriteOp.seq), the pair is judged by it instead: a violation iff seq(w_old) > seq(w_new),
 * whatever the client-observed times say (a stale write applied after a newer accepted one is
 * certain even if the calls overlapped; one applied before is no violation). Pairs where either
 * write lacks `seq` (histories without it, `info` writes) keep the real-time rule above.
 *
 * Applied, unseen. An `info` write that carries `seq` was applied by the resource although its
 * client never learned it (the world read the resource's own log: a write delayed past its
 * client's timeout that arrived later). It counts as accepted: in pairs with `seq` on both sides
 * as above, and as w_old of the real-time rule, judged against writes without `seq` (a
 * violation, no longer "unknown"). It is never w_new of the real-time rule (no completion).
 *
 * Algorithm, O(n) time: per lock keep the newest grant among accepted writes completed so far,
 * as three maxima (highest token among tokened grants; latest acquisition among untokened
 * grants; latest acquisition among all grants). At each write invoke, snapshot them; at its
 * completion, the write is stale iff a snapshot maximum outranks its grant under the rule
 * above. (Two such sets per lock: over all accepted writes, and over those without `seq`,
 * against which a write with `seq` is judged in real time.) Accepted writes with `seq` are also
 * kept, and at the end swept in seq order with the same maxima: O(k log k) for k such writes.
 *
 * Anomaly "stale-write": ops = [stale write completion, newer write completion, acquire ok of
 * the stale grant, acquire ok of the newer grant] (acquire oks omitted when the history has
 * none); time = when the stale write's acceptance was reported.
 */
import { describeHolder, formatMs } from "../history/describe.js";
import { emptyOpFacts, factsOf, type OpFacts } from "../history/facts.js";
import { type GrantInfo, GrantTable } from "../history/grants.js";
import type { GrantId, Op } from "../history/op.js";
import { ProcessMap } from "../history/process-map.js";
import { type Checker, MAX_LISTED_ANOMALIES } from "./checker.js";
import { type Anomaly, certainOrPossible, type Verdict } from "./verdict.js";

/** An accepted, completed write, as the witness that a grant had already written. */
interface AcceptedWrite {
  grant: GrantInfo;
  /** Index and time of its completion. */
  index: number;
  time: number;
  /** Applied, but its completion is `info`: its client never learned it (see the top). */
  unseen: boolean;
}

/** Newest grants among accepted writes completed so far, for one lock. Replaced, never mutated. */
interface Newest {
  byToken: AcceptedWrite | undefined;
  byOrderUntokened: AcceptedWrite | undefined;
  byOrderAll: AcceptedWrite | undefined;
}

const NONE: Newest = { byToken: undefined, byOrderUntokened: undefined, byOrderAll: undefined };

interface OpenWrite {
  /** Index and time of the write's invoke. */
  invokeIndex: number;
  invokeTime: number;
  grant: GrantInfo;
  /** Newest grants among all accepted writes completed before the invoke, and among those without seq. */
  newest: Newest;
  newestNoSeq: Newest;
}

/** Per lock: the newest grants among accepted completed writes (all; without seq), and the writes with seq. */
interface LockBox {
  newest: Newest;
  newestNoSeq: Newest;
  sequenced: SequencedWrite[];
}

/** An accepted write that carried the resource's apply order. */
interface SequencedWrite {
  seq: bigint;
  write: AcceptedWrite;
  invokeTime: number;
  /** Already reported by the real-time rule. */
  flagged: boolean;
}

/** The accepted write in `newest` whose grant outranks `g`, if any. */
function newerThan(newest: Newest, g: GrantInfo): AcceptedWrite | undefined {
  if (g.token !== undefined) {
    const t = newest.byToken;
    if (t?.grant.token !== undefined && t.grant.token > g.token) return t;
    const u = newest.byOrderUntokened;
    if (u && u.grant.order > g.order) return u;
    return undefined;
  }
  const a = newest.byOrderAll;
  return a && a.grant.order > g.order ? a : undefined;
}

function withAccepted(n: Newest, w: AcceptedWrite): Newest {
  const g = w.grant;
  const tok = g.token;
  const byToken =
    tok !== undefined && (n.byToken?.grant.token === undefined || tok > n.byToken.grant.token)
      ? w
      : n.byToken;
  const byOrderUntokened =
    tok === undefined && (!n.byOrderUntokened || g.order > n.byOrderUntokened.grant.order)
      ? w
      : n.byOrderUntokened;
  const byOrderAll = !n.byOrderAll || g.order > n.byOrderAll.grant.order ? w : n.byOrderAll;
  if (byToken === n.byToken && byOrderUntokened === n.byOrderUntokened && byOrderAll === n.byOrderAll)
    return n;
  return { byToken, byOrderUntokened, byOrderAll };
}

function explainBySeq(stale: SequencedWrite, newer: SequencedWrite): string {
  const w = stale.write;
  const n = newer.write;
  const sent = `The stale write was sent at ${formatMs(stale.invokeTime)}`;
  const timing = n.unseen
    ? `${sent}; the newer write's client never learned that it was applied.`
    : stale.invokeTime < n.time
      ? `${sent}, before the newer write's reply came at ${formatMs(n.time)}: only the resource's order shows which came first.`
      : `${sent}, after the newer write's reply came at ${formatMs(n.time)}.`;
  const unseen = w.unseen
    ? ` Its client gave up on it at ${formatMs(w.time)} (no reply), but the resource applied it: the write was still on its way.`
    : "";
  return (
    `The resource applied a write from ${describeHolder(w.grant)} (op ${w.index}) as its write #${stale.seq}, after ` +
    `write #${newer.seq} from the newer holder ${describeHolder(n.grant)} (op ${n.index}): a stale lock holder overwrote ` +
    `the newer holder's data. ${timing}${unseen}`
  );
}

function explain(
  stale: OpenWrite,
  index: number,
  time: number,
  newer: AcceptedWrite,
  definite: boolean,
  unseen = false,
): string {
  const newerWrite = `a write from the newer holder ${describeHolder(newer.grant)}, accepted by ${formatMs(newer.time)} (op ${newer.index})`;
  const sent = `sent at ${formatMs(stale.invokeTime)}`;
  if (definite && unseen) {
    return (
      `The resource applied a write from ${describeHolder(stale.grant)}, ${sent}, whose client gave up on it at ` +
      `${formatMs(time)} (op ${index}, no reply), after it had already accepted ${newerWrite}: a stale lock holder ` +
      "overwrote the newer holder's data."
    );
  }
  if (definite) {
    return (
      `The resource accepted a write from ${describeHolder(stale.grant)} at ${formatMs(time)} (op ${index}) after it had ` +
      `already accepted ${newerWrite}: the stale write was ${sent}, after the newer one completed, so a stale lock ` +
      "holder overwrote the newer holder's data."
    );
  }
  return (
    `A write from ${describeHolder(stale.grant)}, ${sent}, has an unknown outcome (op ${index}); if the resource ` +
    `accepted it, it did so after it had already accepted ${newerWrite}, and a stale lock holder overwrote the newer ` +
    "holder's data."
  );
}

export function createStaleWriteChecker(): Checker {
  const grants = new GrantTable();
  /** Per lock, in a box so that the last lock's box can be kept at hand. */
  const newestByLock = new Map<string, LockBox>();
  let lastLock = "";
  let lastBox: LockBox | undefined;
  function newestBox(lock: string): LockBox {
    if (lock === lastLock && lastBox !== undefined) return lastBox;
    let box = newestByLock.get(lock);
    if (!box) {
      box = { newest: NONE, newestNoSeq: NONE, sequenced: [] };
      newestByLock.set(lock, box);
    }
    lastLock = lock;
    lastBox = box;
    return box;
  }
  /** Open write calls, by process. */
  const open = new ProcessMap<OpenWrite>();
  const violations: Anomaly[] = [];
  const possible: Anomaly[] = [];
  let violationCount = 0;
  let possibleCount = 0;
  let acceptedWrites = 0;
  let rejectedWrites = 0;

  function anomaly(
    w: OpenWrite,
    index: number,
    time: number,
    newer: AcceptedWrite,
    definite: boolean,
    unseen = false,
  ): Anomaly {
    const ops = [index, newer.index];
    if (w.grant.acquired) ops.push(w.grant.order);
    if (newer.grant.acquired) ops.push(newer.grant.order);
    return {
      kind: definite ? "stale-write" : "possible-stale-write",
      ops,
      explanation: explain(w, index, time, newer, definite, unseen),
      time,
    };
  }

  function maybeAccepted(w: OpenWrite, index: number, time: number): void {
    const newer = newerThan(w.newest, w.grant);
    if (!newer) return;
    possibleCount++;
    if (possible.length < MAX_LISTED_ANOMALIES) possible.push(anomaly(w, index, time, newer, false));
  }

  const scratch = emptyOpFacts();
  function stepFacts(op: OpFacts): void {
    if (op.f === "acquire") {
      if (op.type === "ok" && op.grant !== undefined) grants.acquired(op, op.grant);
      return;
    }
    if (op.f !== "write") return;
    if (op.type === "invoke") {
      const grant = grants.forWrite(op, op.grant as GrantId);
      const box = newestBox(op.lock);
      open.set(op.process, {
        invokeIndex: op.index,
        invokeTime: op.time,
        grant,
        newest: box.newest,
        newestNoSeq: box.newestNoSeq,
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
    if (op.type !== "ok") return;
    if (op.accepted === false) {
      rejectedWrites++;
      return;
    }
    acceptedWrites++;
    const seq = op.seq;
    // A write with seq is judged in real time only against writes without one (see the top).
    const newer = newerThan(seq === undefined ? w.newest : w.newestNoSeq, w.grant);
    if (newer) {
      violationCount++;
      if (violations.length < MAX_LISTED_ANOMALIES)
        violations.push(anomaly(w, op.index, op.time, newer, true));
    }
    // The grant was looked up under the invoke's lock.
    const lock = w.grant.lock;
    const accepted: AcceptedWrite = { grant: w.grant, index: op.index, time: op.time, unseen: false };
    const box = newestBox(lock);
    const before = box.newest;
    box.newest = withAccepted(before, accepted);
    if (seq !== undefined) {
      box.sequenced.push({ seq, write: accepted, invokeTime: w.invokeTime, flagged: newer !== undefined });
    } else {
      // Until a lock has a write with seq the two sets are the same object.
      box.newestNoSeq = box.newestNoSeq === before ? box.newest : withAccepted(box.newestNoSeq, accepted);
    }
  }

  /**
   * An `info` write the resource applied (see the top): judged in real time against the writes
   * without seq completed before its invoke, and kept for the seq sweep; not a newest write of
   * the real-time rule, having no completion.
   */
  function appliedUnseen(w: OpenWrite, index: number, time: number, seq: bigint): void {
    acceptedWrites++;
    const newer = newerThan(w.newestNoSeq, w.grant);
    if (newer) {
      violationCount++;
      if (violations.length < MAX_LISTED_ANOMALIES)
        violations.push(anomaly(w, index, time, newer, true, true));
    }
    const applied: AcceptedWrite = { grant: w.grant, index, time, unseen: true };
    newestBox(w.grant.lock).sequenced.push({
      seq,
      write: applied,
      invokeTime: w.invokeTime,
      flagged: newer !== undefined,
    });
  }

  /** The pairs of writes with seq, judged by the resource's apply order (see the top). */
  function sweepBySeq(box: LockBox): void {
    const ws = box.sequenced.sort((a, b) => (a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0));
    let newest = NONE;
    // The sequenced write behind each accepted write the maxima hold, for the explanation.
    const witness = new Map<AcceptedWrite, SequencedWrite>();
    for (let i = 0; i < ws.length; ) {
      // Writes with equal seq are not ordered against each other: judge them all first.
      let j = i;
      while (j < ws.length && ws[j]!.seq === ws[i]!.seq) j++;
      for (let k = i; k < j; k++) {
        const w = ws[k]!;
        const newer = newerThan(newest, w.write.grant);
        if (!newer || w.flagged) continue;
        w.flagged = true;
        violationCount++;
        if (violations.length < MAX_LISTED_ANOMALIES) {
          const n = witness.get(newer)!;
          const ops = [w.write.index, newer.index];
          if (w.write.grant.acquired) ops.push(w.write.grant.order);
          if (newer.grant.acquired) ops.push(newer.grant.order);
          violations.push({ kind: "stale-write", ops, explanation: explainBySeq(w, n), time: w.write.time });
        }
      }
      for (let k = i; k < j; k++) {
        witness.set(ws[k]!.write, ws[k]!);
        newest = withAccepted(newest, ws[k]!.write);
      }
      i = j;
    }
  }

  return {
    name: "stale-write",
    step(op: Op): void {
      stepFacts(factsOf(op, scratch));
    },
    stepFacts,
    finish(): Verdict {
      for (const w of open.values()) maybeAccepted(w, w.invokeIndex, w.invokeTime);
      open.clear();
      for (const box of newestByLock.values()) if (box.sequenced.length > 0) sweepBySeq(box);
      return certainOrPossible(
        "stale-write",
        { count: violationCount, listed: violations },
        { count: possibleCount, listed: possible },
        {
          acceptedWrites,
          rejectedWrites,
          staleWrites: violationCount,
          possibleStaleWrites: possibleCount,
        },
      );
    },
  };
}
