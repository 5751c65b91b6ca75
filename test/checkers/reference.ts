/**
 * Brute-force reference versions of the safety checkers: the definitions at the top of each
 * checker file, written as plainly as possible (pairs and triples of calls, O(n^2)/O(n^3)).
 * They return the set of flagged op indices and the validity, for agreement tests.
 */
import { type ClientId, type ClientOp, isNemesisOp, type Op } from "../../src/history/op.js";

export interface Call {
  invoke: ClientOp;
  /** undefined: still open when the history ended (treated as info). */
  completion: ClientOp | undefined;
}

export function calls(ops: readonly Op[]): Call[] {
  const out: Call[] = [];
  const open = new Map<ClientId, Call>();
  for (const op of ops) {
    if (isNemesisOp(op)) continue;
    if (op.type === "invoke") {
      const c: Call = { invoke: op, completion: undefined };
      open.set(op.process, c);
      out.push(c);
    } else {
      const c = open.get(op.process);
      if (!c) continue;
      open.delete(op.process);
      if (c.invoke.f === op.f) c.completion = op;
      else out.splice(out.indexOf(c), 1);
    }
  }
  return out;
}

export interface RefResult {
  valid: true | false | "unknown";
  /** Indices of the ops a definite violation is reported at (completion of the offending call). */
  flagged: Set<number>;
}

/** The resource's apply order of an accepted write, if its completion carries one. */
const seqOf = (c: Call) => (c.completion as { seq?: bigint } | undefined)?.seq;

const isAcceptedOk = (c: Call) =>
  c.completion?.type === "ok" && (c.completion as { accepted?: boolean }).accepted !== false;
/** An `info` write with seq: the resource applied it, its client never learned it. */
const isAppliedUnseen = (c: Call) => c.completion?.type === "info" && seqOf(c) !== undefined;
/** Certainly applied by the resource. */
const isApplied = (c: Call) => isAcceptedOk(c) || isAppliedUnseen(c);
/** Perhaps applied: no outcome known, and no seq to say it was. */
const mayBeAccepted = (c: Call) =>
  c.completion === undefined || (c.completion.type === "info" && seqOf(c) === undefined);

/**
 * x was certainly applied before y (x applied, y applied or possibly): by seq when both carry
 * one, else y was invoked after x completed (which needs x's `ok`).
 */
function before(x: Call, y: Call): boolean {
  const sx = seqOf(x);
  const sy = seqOf(y);
  if (sx !== undefined && sy !== undefined) return sx < sy;
  return isAcceptedOk(x) && y.invoke.index > x.completion!.index;
}
const endIndex = (c: Call) => (c.completion ?? c.invoke).index;

function result(definite: Set<number>, possible: boolean): RefResult {
  return { valid: definite.size > 0 ? false : possible ? "unknown" : true, flagged: definite };
}

interface Rank {
  order: number;
  token: bigint | undefined;
}

/** Grant rank: from its acquire ok if any, else from the first write naming it. */
function rankOf(ops: readonly Op[], lock: string, grant: string): Rank {
  for (const op of ops) {
    if (
      op.process !== "nemesis" &&
      op.f === "acquire" &&
      op.type === "ok" &&
      op.lock === lock &&
      op.grant === grant
    ) {
      return { order: op.index, token: op.token };
    }
  }
  for (const op of ops) {
    if (
      op.process !== "nemesis" &&
      op.f === "write" &&
      op.type === "invoke" &&
      op.lock === lock &&
      op.grant === grant
    ) {
      return { order: op.index, token: op.token };
    }
  }
  throw new Error(`no op names grant ${grant}`);
}

function newer(a: Rank, b: Rank): boolean {
  return a.token !== undefined && b.token !== undefined ? a.token > b.token : a.order > b.order;
}

export function refStaleWrite(ops: readonly Op[]): RefResult {
  const writes = calls(ops).filter((c) => c.invoke.f === "write");
  const definite = new Set<number>();
  let possible = false;
  for (const old of writes) {
    if (!isApplied(old) && !mayBeAccepted(old)) continue;
    const w = old.invoke as Extract<ClientOp, { f: "write" }>;
    for (const nw of writes) {
      const n = nw.invoke as Extract<ClientOp, { f: "write" }>;
      if (!isApplied(nw) || n.lock !== w.lock) continue;
      if (!before(nw, old)) continue;
      if (!newer(rankOf(ops, n.lock, n.grant), rankOf(ops, w.lock, w.grant))) continue;
      if (isApplied(old)) definite.add(old.completion!.index);
      else possible = true;
    }
  }
  return result(definite, possible);
}

export function refMutualExclusion(ops: readonly Op[]): RefResult {
  const writes = calls(ops).filter((c) => c.invoke.f === "write");
  const grantOf = (c: Call) => (c.invoke as { grant: string }).grant;
  const definite = new Set<number>();
  let possible = false;
  // A lock whose applied writes all carry seq is judged by it (for a, b, and an applied c).
  const bySeq = (lock: string) => {
    const applied = writes.filter((w) => w.invoke.lock === lock && isApplied(w));
    return applied.length > 0 && applied.every((w) => seqOf(w) !== undefined);
  };
  // In real time only a write with an `ok` is known to have come before a later invoke.
  const ordered = (x: Call, y: Call, seqMode: boolean) =>
    seqMode && seqOf(y) !== undefined
      ? seqOf(x)! < seqOf(y)!
      : isAcceptedOk(x) && y.invoke.index > x.completion!.index;
  for (const c of writes) {
    const seqMode = bySeq(c.invoke.lock);
    if (!isApplied(c) && !mayBeAccepted(c)) continue;
    let found = false;
    for (const a of writes) {
      if (found) break;
      if (!isApplied(a) || a.invoke.lock !== c.invoke.lock || grantOf(a) !== grantOf(c)) continue;
      for (const b of writes) {
        if (!isApplied(b) || b.invoke.lock !== c.invoke.lock || grantOf(b) === grantOf(c)) continue;
        if (ordered(a, b, seqMode) && ordered(b, c, seqMode)) {
          found = true;
          break;
        }
      }
    }
    if (!found) continue;
    if (isApplied(c)) definite.add(endIndex(c));
    else possible = true;
  }
  return result(definite, possible);
}

export function refTokenOrder(ops: readonly Op[]): RefResult {
  const grants = calls(ops).filter(
    (c) =>
      c.invoke.f === "acquire" &&
      c.completion?.type === "ok" &&
      (c.completion as { token?: bigint }).token !== undefined,
  );
  const tokenOf = (c: Call) => (c.completion as { token: bigint }).token;
  const grantOf = (c: Call) => (c.completion as { grant?: string }).grant;
  const fault = ops.findIndex(
    (op) =>
      isNemesisOp(op) &&
      LEASE_ENDING.has(op.f) &&
      op.node !== undefined &&
      op.node !== "resource" &&
      !op.node.startsWith("client:"),
  );
  const leasesUnsureFrom = fault < 0 ? Infinity : fault;
  const definite = new Set<number>();
  for (const g2 of grants) {
    for (const g1 of grants) {
      if (g1 === g2 || g1.invoke.lock !== g2.invoke.lock) continue;
      const reuse =
        tokenOf(g1) === tokenOf(g2) &&
        grantOf(g1) !== grantOf(g2) &&
        g1.completion!.index < g2.completion!.index;
      const decrease = g2.invoke.index > g1.completion!.index && tokenOf(g2) < tokenOf(g1);
      if (reuse || decrease) definite.add(g2.completion!.index);
      // Leases: g1 (lower token) certainly held until hold(g1); g2 of another client completed
      // before it, so it was granted before g1, with a higher token.
      const later = Math.max(g1.completion!.index, g2.completion!.index);
      if (
        later < leasesUnsureFrom &&
        g1.invoke.process !== g2.invoke.process &&
        tokenOf(g2) > tokenOf(g1) &&
        completedWhileHeld(ops, g2, g1)
      )
        definite.add(later);
    }
  }
  return result(definite, false);
}

/** Server faults that can end a lease early: the lease rule of token-order stops at the first. */
const LEASE_ENDING = new Set(["crash", "restart", "clock-jump", "clock-drift"]);

/**
 * h completed before hold(g) of token-order.ts: before g's invoke + its ttlMs less the slack
 * (1 ms + 1% of ttlMs), in ns, and before (in history order) g's client's next release or
 * acquire invoke. Never without g's ttlMs.
 */
function completedWhileHeld(ops: readonly Op[], h: Call, g: Call): boolean {
  const ttl = (g.invoke as { ttlMs?: number }).ttlMs;
  if (ttl === undefined) return false;
  if (h.completion!.time >= g.invoke.time + ttl * 1e6 - (1e6 + ttl * 1e4)) return false;
  const next = ops.find(
    (op) =>
      op.index > g.completion!.index &&
      op.process === g.invoke.process &&
      op.type === "invoke" &&
      (op.f === "release" || op.f === "acquire"),
  );
  return next === undefined || h.completion!.index < next.index;
}

/** Total ns during which two or more clients held the same lock (holds as in liveness.ts). */
export function refLeaseOverlapNs(ops: readonly Op[]): number {
  const holds: Array<{ lock: string; from: number; to: number }> = [];
  const end = ops.reduce((m, op) => Math.max(m, op.time), 0);
  ops.forEach((op, i) => {
    if (op.process === "nemesis" || op.f !== "acquire" || op.type !== "ok") return;
    const p = op.process;
    let to = end;
    for (const later of ops.slice(i + 1)) {
      const stops =
        (later.process === p &&
          later.f === "release" &&
          later.type === "invoke" &&
          (later.grant === undefined || op.grant === undefined || later.grant === op.grant)) ||
        (later.process === p && later.f === "acquire" && later.type === "ok") ||
        (later.process === "nemesis" && later.f === "crash" && later.node === `client:${p}`);
      if (stops) {
        to = later.time;
        break;
      }
    }
    holds.push({ lock: op.lock, from: op.time, to });
  });
  const times = [...new Set(holds.flatMap((h) => [h.from, h.to]))].sort((a, b) => a - b);
  let total = 0;
  for (const lock of new Set(holds.map((h) => h.lock))) {
    for (let i = 0; i + 1 < times.length; i++) {
      const [a, b] = [times[i]!, times[i + 1]!];
      const covering = holds.filter((h) => h.lock === lock && h.from <= a && h.to >= b).length;
      if (covering >= 2) total += b - a;
    }
  }
  return total;
}
