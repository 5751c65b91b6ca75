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
 * Grants without a token, and acquires that failed or ended `info`, are not judged. The
 * verdict is never "unknown": an `info` acquire handed out no token anyone saw.
 *
 * Algorithm, O(n) time: per lock keep the highest token among completed acquires and a map
 * token → first grant holding it; snapshot the highest token at each acquire invoke and
 * judge the token at completion (reuse first, as it is the more specific finding).
 *
 * Anomalies: ops = [the later acquire ok, the earlier acquire ok it conflicts with].
 */
import { formatMs } from "../history/describe.js";
import { emptyOpFacts, factsOf, type OpFacts } from "../history/facts.js";
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

function describe(g: Granted): string {
  return `client ${g.process} (grant ${g.grant}) got token ${g.token} at ${formatMs(g.time)} (op ${g.index})`;
}

export function createTokenOrderChecker(): Checker {
  const states = new Map<string, LockState>();
  // Open acquire calls (their lock and invoke time) and the highest token granted before each
  // was invoked, by process.
  const open = new ProcessMap<{ lock: string; time: number; highest: Granted | undefined }>();
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
      s = { highest: undefined, byToken: { ascending: [], others: new Map() } };
      states.set(lock, s);
    }
    lastLock = lock;
    lastState = s;
    return s;
  }

  const scratch = emptyOpFacts();
  function stepFacts(op: OpFacts): void {
    if (op.f !== "acquire") return;
    if (op.type === "invoke") {
      open.set(op.process, { lock: op.lock, time: op.time, highest: stateFor(op.lock).highest });
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
    }
    if (!same) addToken(s.byToken, g);
    if (!s.highest || g.token > s.highest.token) s.highest = g;
  }

  return {
    name: "token-order",
    step(op: Op): void {
      stepFacts(factsOf(op, scratch));
    },
    stepFacts,
    finish(): Verdict {
      const violations = reuseCount + decreaseCount;
      return {
        checker: "token-order",
        valid: violations === 0,
        anomalies,
        stats: { tokensGranted: tokensSeen, tokenReuses: reuseCount, tokenDecreases: decreaseCount },
      };
    },
  };
}
