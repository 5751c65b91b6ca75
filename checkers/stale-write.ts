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
 * Algorithm, O(n) time: per lock keep the newest grant among accepted writes completed so far,
 * as three maxima (highest token among tokened grants; latest acquisition among untokened
 * grants; latest acquisition among all grants). At each write invoke, snapshot them; at its
 * completion, the write is stale iff a snapshot maximum outranks its grant under the rule
 * above.
 *
 * Anomaly "stale-write": ops = [stale write completion, newer write completion, acquire ok of
 * the stale grant, acquire ok of the newer grant] (acquire oks omitted when the history has
 * none); time = when the stale write's acceptance was reported.
 */
import { describeHolder, formatMs } from "../src/history/describe.js";
import { emptyOpFacts, factsOf, type OpFacts } from "../src/history/facts.js";
import { type GrantInfo, GrantTable } from "../src/history/grants.js";
import type { GrantId, Op } from "../src/history/op.js";
import { ProcessMap } from "../src/history/process-map.js";
import { type Checker, MAX_LISTED_ANOMALIES } from "./checker.js";
import { type Anomaly, certainOrPossible, type Verdict } from "./verdict.js";

/** An accepted, completed write, as the witness that a grant had already written. */
interface AcceptedWrite {
  grant: GrantInfo;
  /** Index and time of its completion. */
  index: number;
  time: number;
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
  newest: Newest;
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

function explain(
  stale: OpenWrite,
  index: number,
  time: number,
  newer: AcceptedWrite,
  definite: boolean,
): string {
  const newerWrite = `a write from the newer holder ${describeHolder(newer.grant)}, accepted by ${formatMs(newer.time)} (op ${newer.index})`;
  const sent = `sent at ${formatMs(stale.invokeTime)}`;
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
  const newestByLock = new Map<string, { newest: Newest }>();
  let lastLock = "";
  let lastBox: { newest: Newest } | undefined;
  function newestBox(lock: string): { newest: Newest } {
    if (lock === lastLock && lastBox !== undefined) return lastBox;
    let box = newestByLock.get(lock);
    if (!box) {
      box = { newest: NONE };
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
  ): Anomaly {
    const ops = [index, newer.index];
    if (w.grant.acquired) ops.push(w.grant.order);
    if (newer.grant.acquired) ops.push(newer.grant.order);
    return {
      kind: definite ? "stale-write" : "possible-stale-write",
      ops,
      explanation: explain(w, index, time, newer, definite),
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
      open.set(op.process, {
        invokeIndex: op.index,
        invokeTime: op.time,
        grant,
        newest: newestBox(op.lock).newest,
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
    if (op.type !== "ok") return;
    if (op.accepted === false) {
      rejectedWrites++;
      return;
    }
    acceptedWrites++;
    const newer = newerThan(w.newest, w.grant);
    if (newer) {
      violationCount++;
      if (violations.length < MAX_LISTED_ANOMALIES)
        violations.push(anomaly(w, op.index, op.time, newer, true));
    }
    // The grant was looked up under the invoke's lock.
    const lock = w.grant.lock;
    const accepted: AcceptedWrite = { grant: w.grant, index: op.index, time: op.time };
    const box = newestBox(lock);
    box.newest = withAccepted(box.newest, accepted);
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
