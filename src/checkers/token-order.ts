/**
 * token-order: the lock service must hand out fencing tokens that strictly increase across
 * grants. A reused or lower token is a bug in the lock service itself: a fenced resource
 * cannot tell the holders apart, or would reject the newer one.
 *
 * Definition, per lock, over acquire calls that completed `ok` with a token (a call is an
 * invoke plus its process's next completion): for grants G1, G2 with tokens t1, t2,
 * - if G2's acquire was invoked after G1's acquire completed, t2 > t1 is required; t2 < t1
 *   is a violation ("token-not-increasing");
 * - two distinct grants with equal tokens are always a violation ("token-reuse"), even when
 *   their acquires overlapped.
 * - Leases ("token-inverted"). When acquire invokes say the lease time asked for (`ttlMs`),
 *   a grant G is certainly held from its grant point (somewhere in its acquire call) until
 *   hold(G) = min(its invoke + ttlMs, its client's next release or acquire invoke): a lease
 *   granted in the call lasts at least ttlMs from the invoke, and only its holder ends it
 *   sooner. A grant H of another client that completed before hold(G) was granted before
 *   hold(G): before G, or while G held the lock, which a lock service never does. So t_H < t_G
 *   is required; t_H > t_G is a violation. This catches a token taken in a second step after
 *   the grant (SET NX, then INCR): a holder paused between the two wakes with a token higher
 *   than the next holder's, and a fenced resource takes the older holder for the newer one.
 *   Lease ends are taken in true time, with a slack of 1 ms plus 1% of ttlMs; the rule stops
 *   at the first crash, restart or clock fault of a server node (a nemesis op on a node other
 *   than `client:N` and `resource`), which can end leases early.
 * Grants without a token, and acquires that failed or ended `info`, are not judged. The
 * verdict is never "unknown": an `info` acquire handed out no token anyone saw.
 *
 * Algorithm, O(n log n) time: per lock keep the highest token among completed acquires, a map
 * token → first grant holding it, the grants completed so far in completion order with the
 * running highest token (for "completed before hold(G)", a binary search), and the grants whose
 * hold has not ended yet; snapshot the highest token at each acquire invoke and judge the
 * token at completion (reuse first, as it is the more specific finding).
 *
 * Anomalies: ops = [the later acquire ok, the earlier acquire ok it conflicts with].
 */
import { formatMs } from "../history/describe.js";
import { emptyOpFacts, factsOf, NEMESIS, type OpFacts } from "../history/facts.js";
import type { ClientId, Op } from "../history/op.js";
import { ProcessMap } from "../history/process-map.js";
import { type Checker, MAX_LISTED_ANOMALIES } from "./checker.js";
import type { Anomaly, Verdict } from "./verdict.js";

interface Granted {
  grant: string;
  process: ClientId;
  token: bigint;
  index: number;
  time: number;
}

interface LockState {
  highest: Granted | undefined;
  byToken: TokenIndex;
  /** Completed grants in completion order (times non-decreasing), and the highest token so far at each. */
  doneTimes: number[];
  highestSoFar: Granted[];
  /** Grants whose hold (see the top) has not ended: until when, and whose. */
  holding: Holding[];
}

interface Holding {
  granted: Granted;
  /** invoke + ttlMs − slack, in ns (its client's next release or acquire takes it out sooner). */
  until: number;
  /** When the lease was asked for and for how long (ms), for the explanation. */
  invokeTime: number;
  ttlMs: number;
}

/**
 * Token → first grant holding it. Tokens nearly always arrive in increasing order: those are
 * appended to a sorted array (found by binary search), the others go to a Map. This saves a
 * hash-map insert per grant, which is costly on million-op histories.
 */
interface TokenIndex {
  ascending: Granted[];
  others: Map<bigint, Granted>;
}

function findToken(ix: TokenIndex, token: bigint): Granted | undefined {
  const a = ix.ascending;
  const last = a[a.length - 1];
  // Every token in `others` is at most the last ascending one.
  if (last === undefined || token > last.token) return undefined;
  let lo = 0;
  let hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const g = a[mid]!;
    if (g.token === token) return g;
    if (g.token < token) lo = mid + 1;
    else hi = mid - 1;
  }
  return ix.others.get(token);
}

function addToken(ix: TokenIndex, g: Granted): void {
  const last = ix.ascending[ix.ascending.length - 1];
  if (last === undefined || g.token > last.token) ix.ascending.push(g);
  else ix.others.set(g.token, g);
}

/** Slack on hold(G), in ns: 1 ms plus 1% of the TTL (clock rates, ms rounding). */
function holdSlackNs(ttlMs: number): number {
  return 1e6 + ttlMs * 1e4;
}

/** Server nodes' faults that can end a lease early (lost keys, a lease clock gone ahead). */
const LEASE_ENDING_FAULTS: ReadonlySet<string> = new Set(["crash", "restart", "clock-jump", "clock-drift"]);

function isServerNode(node: string | undefined): boolean {
  return node !== undefined && node !== "resource" && !node.startsWith("client:");
}

/** The last of `times` (non-decreasing) below `t`, or -1. */
function lastBelow(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! < t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A grant's lease: asked for `ttlMs` at `invokeTime` (ns). */
function describeHold(g: Granted, invokeTime: number, ttlMs: number): string {
  return (
    `client ${g.process}'s lease (grant ${g.grant}, token ${g.token}, ` +
    `asked for ${ttlMs} ms at ${formatMs(invokeTime)}, not released yet)`
  );
}

/** A token-inverted anomaly's explanation: `older` was granted before `newer`, and has the higher token. */
function inverted(why: string, older: Granted, newer: Granted): string {
  return (
    `${why}: client ${older.process}'s grant must have come before client ${newer.process}'s (a held ` +
    "lock is not granted), yet its token is higher. A fenced resource takes the older holder for " +
    "the newer one and rejects the holder that has the lock (a token taken in a second step " +
    "after the grant, by a holder paused between the two?)."
  );
}

function describe(g: Granted): string {
  return `client ${g.process} (grant ${g.grant}) got token ${g.token} at ${formatMs(g.time)} (op ${g.index})`;
}

export function createTokenOrderChecker(): Checker {
  const states = new Map<string, LockState>();
  // Open acquire calls (their lock and invoke time) and the highest token granted before each
  // was invoked, by process.
  const open = new ProcessMap<{
    lock: string;
    time: number;
    highest: Granted | undefined;
    ttlMs: number | undefined;
  }>();
  /** Each process's grant whose hold has not ended, to end at its next release or acquire invoke. */
  const heldBy = new ProcessMap<{ state: LockState; holding: Holding }>();
  /** A server fault that can end leases early was seen: no lease rule from then on. */
  let leasesUnsure = false;
  let inversionCount = 0;
  const anomalies: Anomaly[] = [];
  let reuseCount = 0;
  let decreaseCount = 0;
  let tokensSeen = 0;

  function report(kind: string, later: Granted, earlier: Granted, explanation: string): void {
    if (anomalies.length < MAX_LISTED_ANOMALIES) {
      anomalies.push({ kind, ops: [later.index, earlier.index], explanation, time: later.time });
    }
  }

  // Most histories have one lock: remember the last one looked up.
  let lastLock = "";
  let lastState: LockState | undefined;
  function stateFor(lock: string): LockState {
    if (lock === lastLock && lastState !== undefined) return lastState;
    let s = states.get(lock);
    if (!s) {
      s = {
        highest: undefined,
        byToken: { ascending: [], others: new Map() },
        doneTimes: [],
        highestSoFar: [],
        holding: [],
      };
      states.set(lock, s);
    }
    lastLock = lock;
    lastState = s;
    return s;
  }

  const scratch = emptyOpFacts();
  /** Ends the hold of `process`'s grant, if any: its client invoked a release or an acquire. */
  function endHold(process: ClientId): void {
    const held = heldBy.get(process);
    if (held === undefined) return;
    heldBy.set(process, undefined);
    const i = held.state.holding.indexOf(held.holding);
    if (i >= 0) held.state.holding.splice(i, 1);
  }

  /**
   * The lease rule for grant `g` (asked for `ttlMs` at `invokeTime`; ttlMs undefined: not
   * said) just completed: true if it reported an inversion.
   */
  function leaseRule(s: LockState, g: Granted, invokeTime: number, ttlMs: number | undefined): boolean {
    // Grants still held now, granted before g then, must carry lower tokens.
    for (let i = s.holding.length - 1; i >= 0; i--) {
      const h = s.holding[i]!;
      if (h.until <= g.time) {
        s.holding.splice(i, 1);
        continue;
      }
      if (h.granted.token < g.token && h.granted.process !== g.process) {
        inversionCount++;
        const why = `${describe(g)}, while ${describeHold(h.granted, h.invokeTime, h.ttlMs)} was certainly still held`;
        report("token-inverted", g, h.granted, inverted(why, g, h.granted));
        return true;
      }
    }
    if (ttlMs === undefined) return false;
    // Grants completed before g's hold could end were granted before g: lower tokens.
    const until = invokeTime + ttlMs * 1e6 - holdSlackNs(ttlMs);
    const last = lastBelow(s.doneTimes, until);
    const higher = last < 0 ? undefined : s.highestSoFar[last];
    // (A grant of g's own client completed before g's invoke: the rule above had its token.)
    if (higher !== undefined && higher.token > g.token) {
      inversionCount++;
      const hold = describeHold(g, invokeTime, ttlMs);
      const why = `${describe(higher)}, while ${hold} was certainly held from its grant on`;
      report("token-inverted", g, higher, inverted(why, higher, g));
      return true;
    }
    return false;
  }

  function stepFacts(op: OpFacts): void {
    if (op.process === NEMESIS) {
      if (!leasesUnsure && LEASE_ENDING_FAULTS.has(op.f) && isServerNode(op.node)) {
        leasesUnsure = true;
        for (const s of states.values()) s.holding.length = 0;
      }
      return;
    }
    // A client's hold ends at its next release (or, if it never released, its next acquire).
    if (op.type === "invoke" && op.f !== "write") endHold(op.process);
    if (op.f !== "acquire") return;
    if (op.type === "invoke") {
      open.set(op.process, {
        lock: op.lock,
        time: op.time,
        highest: stateFor(op.lock).highest,
        ttlMs: op.ttlMs,
      });
      return;
    }
    const call = open.get(op.process);
    if (call === undefined) return;
    open.set(op.process, undefined);
    const { lock, highest } = call;
    if (op.type !== "ok" || op.token === undefined) return;
    tokensSeen++;
    const s = stateFor(lock);
    const g: Granted = {
      grant: op.grant ?? `op ${op.index}`,
      process: op.process,
      token: op.token,
      index: op.index,
      time: op.time,
    };
    const same = findToken(s.byToken, g.token);
    if (same && same.grant !== g.grant) {
      reuseCount++;
      report(
        "token-reuse",
        g,
        same,
        `The lock service handed token ${g.token} to two grants: ${describe(same)}, and ${describe(g)}. ` +
          "A fenced resource cannot tell these holders apart.",
      );
    } else if (highest && g.token < highest.token) {
      decreaseCount++;
      report(
        "token-not-increasing",
        g,
        highest,
        `Tokens went backwards: ${describe(highest)}; later ${describe(g)}, although its acquire started ` +
          `at ${formatMs(call.time)}, after the earlier grant. A fenced resource would reject the newer holder.`,
      );
    } else if (!leasesUnsure) leaseRule(s, g, call.time, call.ttlMs);
    if (!same) addToken(s.byToken, g);
    if (!s.highest || g.token > s.highest.token) s.highest = g;
    // Non-decreasing for the binary search even if times go back across processes (a warning
    // only): a grant then counts as completed as late as the latest before it, never earlier.
    s.doneTimes.push(Math.max(g.time, s.doneTimes[s.doneTimes.length - 1] ?? 0));
    s.highestSoFar.push(s.highest);
    if (call.ttlMs !== undefined && !leasesUnsure) {
      const holding: Holding = {
        granted: g,
        until: call.time + call.ttlMs * 1e6 - holdSlackNs(call.ttlMs),
        invokeTime: call.time,
        ttlMs: call.ttlMs,
      };
      s.holding.push(holding);
      heldBy.set(op.process, { state: s, holding });
    }
  }

  return {
    name: "token-order",
    step(op: Op): void {
      stepFacts(factsOf(op, scratch));
    },
    stepFacts,
    finish(): Verdict {
      const violations = reuseCount + decreaseCount + inversionCount;
      return {
        checker: "token-order",
        valid: violations === 0,
        anomalies,
        stats: {
          tokensGranted: tokensSeen,
          tokenReuses: reuseCount,
          tokenDecreases: decreaseCount,
          tokenInversions: inversionCount,
        },
      };
    },
  };
}
