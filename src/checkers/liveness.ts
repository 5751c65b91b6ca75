/**
 * liveness: information about progress, never a violation (valid is always true).
 *
 * - Acquire latency: time from an acquire invoke to its `ok`, p50/p99/max over all `ok`s.
 * - Success ratio: acquires that completed `ok` / acquires invoked.
 * - Jams: a nemesis `crash` of node "client:N" while client N holds a grant leaves the lock
 *   held by nobody alive. The jam lasts from the crash to the next acquire `ok` of that lock by
 *   anyone, or to the end of the history ("still jammed"). Each jam is listed as an anomaly of
 *   kind "jam" (information; ops = [crash, next acquire ok]).
 * - Lease overlap: total time during which two or more clients believed they held the same
 *   lock. A client holds from its acquire `ok` to its release invoke, its crash, or the end of
 *   the history, whichever comes first.
 *
 * A nemesis fault recorded as an invoke and a completion counts once, at the invoke; a
 * completion with no open nemesis invoke counts at itself. Times are taken non-decreasing in
 * history order. O(n) time; memory is one latency per successful acquire.
 */
import { formatMs } from "../history/describe.js";
import { emptyOpFacts, factsOf, NEMESIS, type OpFacts } from "../history/facts.js";
import type { ClientId, Op } from "../history/op.js";
import { ProcessMap } from "../history/process-map.js";
import { type Checker, MAX_LISTED_ANOMALIES } from "./checker.js";
import type { Anomaly, Verdict } from "./verdict.js";

interface Hold {
  lock: string;
  grant: string | undefined;
}

interface LockState {
  holders: number;
  /** Start of the current stretch with two or more holders. */
  overlapSince: number;
  overlapNs: number;
  jam: { since: number; crashIndex: number; process: ClientId } | undefined;
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: Float64Array, p: number): number {
  const i = Math.max(0, Math.ceil(p * sorted.length) - 1);
  return sorted[i] ?? 0;
}

const msOf = (ns: number) => ns / 1e6;

export function createLivenessChecker(): Checker {
  // Per client: the hold it believes it has, its open acquire's start.
  const holds = new ProcessMap<Hold>();
  const locks = new Map<string, LockState>();
  // Start time of each process's open acquire, -1 when none.
  const acquireStarted = new ProcessMap<number>();
  let latencies = new Float64Array(1024);
  let latencyCount = 0;
  let invoked = 0;
  let failed = 0;
  let uncertain = 0;
  let nemesisOpen = false;
  // A field, not a `let`: assigning a double to a closure variable allocates on every op.
  const clock = { now: 0 };
  const jams: Anomaly[] = [];
  let jamCount = 0;
  let jammedNs = 0;
  let jammedMaxNs = 0;
  let stillJammed = 0;

  function lockState(lock: string): LockState {
    let s = locks.get(lock);
    if (!s) {
      s = { holders: 0, overlapSince: 0, overlapNs: 0, jam: undefined };
      locks.set(lock, s);
    }
    return s;
  }

  function addHolder(s: LockState): void {
    s.holders++;
    if (s.holders === 2) s.overlapSince = clock.now;
  }

  function removeHolder(s: LockState): void {
    if (s.holders === 2) s.overlapNs += clock.now - s.overlapSince;
    s.holders--;
  }

  function endJam(s: LockState, lock: string, endIndex: number | undefined): void {
    const jam = s.jam;
    if (!jam) return;
    s.jam = undefined;
    const ns = clock.now - jam.since;
    jamCount++;
    jammedNs += ns;
    jammedMaxNs = Math.max(jammedMaxNs, ns);
    if (endIndex === undefined) stillJammed++;
    if (jams.length >= MAX_LISTED_ANOMALIES) return;
    const ended =
      endIndex === undefined
        ? `and it was still held by the dead client when the history ended, ${formatMs(ns)} later`
        : `until the next acquire succeeded at ${formatMs(clock.now)} (op ${endIndex}), ${formatMs(ns)} later`;
    jams.push({
      kind: "jam",
      ops: endIndex === undefined ? [jam.crashIndex] : [jam.crashIndex, endIndex],
      explanation: `Client ${jam.process} crashed at ${formatMs(jam.since)} (op ${jam.crashIndex}) while holding lock "${lock}", ${ended}.`,
      time: jam.since,
    });
  }

  function crash(op: OpFacts): void {
    const m = /^client:(.+)$/.exec(op.node ?? "");
    if (!m) return;
    // "client:3" names client 3; "client:alice" names client "alice".
    const process: ClientId = /^\d+$/.test(m[1]!) ? Number(m[1]) : m[1]!;
    const hold = holds.get(process);
    if (!hold) return;
    holds.set(process, undefined);
    const s = lockState(hold.lock);
    removeHolder(s);
    if (!s.jam) s.jam = { since: clock.now, crashIndex: op.index, process };
  }

  const scratch = emptyOpFacts();
  function stepFacts(op: OpFacts): void {
    if (op.time > clock.now) clock.now = op.time;
    if (op.f === "acquire") {
      if (op.type === "invoke") {
        invoked++;
        acquireStarted.set(op.process, op.time);
        return;
      }
      const started = acquireStarted.get(op.process) ?? -1;
      if (started < 0) return;
      acquireStarted.set(op.process, -1);
      if (op.type === "fail") failed++;
      else if (op.type === "info") uncertain++;
      if (op.type !== "ok") return;
      if (latencyCount === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[latencyCount++] = op.time - started;
      const s = lockState(op.lock);
      endJam(s, op.lock, op.index);
      const previous = holds.get(op.process);
      if (previous) removeHolder(lockState(previous.lock));
      holds.set(op.process, { lock: op.lock, grant: op.grant });
      addHolder(s);
      return;
    }
    if (op.process === NEMESIS) {
      const counts = op.type === "invoke" || !nemesisOpen;
      nemesisOpen = op.type === "invoke";
      if (counts && op.f === "crash") crash(op);
      return;
    }
    if (op.f === "release" && op.type === "invoke") {
      const hold = holds.get(op.process);
      if (hold && (op.grant === undefined || hold.grant === undefined || hold.grant === op.grant)) {
        holds.set(op.process, undefined);
        removeHolder(lockState(hold.lock));
      }
    }
  }

  return {
    name: "liveness",
    step(op: Op): void {
      stepFacts(factsOf(op, scratch));
    },
    stepFacts,
    finish(): Verdict {
      for (const [lock, s] of locks) {
        if (s.holders >= 2) s.overlapNs += clock.now - s.overlapSince;
        endJam(s, lock, undefined);
      }
      const sorted = latencies.slice(0, latencyCount).sort();
      let overlapNs = 0;
      for (const s of locks.values()) overlapNs += s.overlapNs;
      return {
        checker: "liveness",
        valid: true,
        anomalies: jams,
        stats: {
          acquires: invoked,
          acquiresOk: latencyCount,
          acquiresFailed: failed,
          acquiresUnknown: uncertain,
          successRatio: invoked === 0 ? null : latencyCount / invoked,
          acquireLatencyP50Ms: latencyCount === 0 ? null : msOf(percentile(sorted, 0.5)),
          acquireLatencyP99Ms: latencyCount === 0 ? null : msOf(percentile(sorted, 0.99)),
          acquireLatencyMaxMs: latencyCount === 0 ? null : msOf(sorted[latencyCount - 1] ?? 0),
          jams: jamCount,
          jammedMsTotal: msOf(jammedNs),
          jammedMsMax: msOf(jammedMaxNs),
          stillJammed: stillJammed > 0,
          leaseOverlapMs: msOf(overlapNs),
        },
      };
    },
  };
}
