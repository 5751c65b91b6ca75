/**
 * fast-check arbitraries of histories for checker property tests.
 *
 * - `fencedLockHistory`: a correct lease lock (one holder at a time per the service, strictly
 *   increasing tokens) protecting a fencing resource (accepts a token >= the highest it has
 *   seen). Clients may outlive their lease (a pause), writes may be lost or their replies
 *   lost (info), clients may crash. The safety checkers must never call such a history invalid.
 * - `chaosHistory`: random well-formed histories (valid per the reader's validator) with no
 *   correctness guarantee at all: random tokens (with reuse), random acceptance, writes under
 *   other clients' or unknown grants, two locks, crashes, calls left open. For agreement with
 *   the brute-force reference.
 * Both are driven by a list of scheduler moves, so they shrink well.
 */
import fc from "fast-check";
import type { Op } from "../../src/history/op.js";

const MS = 1_000_000;

export interface Move {
  client: number;
  choice: number;
  dt: number;
}

const moveArb = (maxClients: number) =>
  fc.record({ client: fc.nat(maxClients - 1), choice: fc.nat(9), dt: fc.nat(4) });

type Pending =
  | { kind: "acquire" }
  | { kind: "write"; grant: string; token: bigint; applied?: boolean }
  | { kind: "release"; grant: string };

interface FencedClient {
  held: { grant: string; token: bigint } | undefined;
  pending: Pending | undefined;
  attempts: number;
  crashed: boolean;
}

export interface FencedParams {
  clients: number;
  ttlMs: number;
  firstToken: bigint;
  moves: Move[];
}

export function simulateFencedLock(params: FencedParams): Op[] {
  const ops: Op[] = [];
  let time = 0;
  const push = (op: Record<string, unknown>) => ops.push({ index: ops.length, time, ...op } as unknown as Op);
  let nextToken = params.firstToken;
  let holder: { grant: string; expires: number } | undefined;
  let resourceMax: bigint | undefined;
  const clients: FencedClient[] = Array.from({ length: params.clients }, () => ({
    held: undefined,
    pending: undefined,
    attempts: 0,
    crashed: false,
  }));
  for (const m of params.moves) {
    time += m.dt * MS;
    const p = m.client % params.clients;
    const c = clients[p]!;
    if (c.crashed) continue;
    const lock = "L";
    const pend = c.pending;
    if (m.choice === 9) {
      c.crashed = true;
      push({ process: "nemesis", type: "info", f: "crash", node: `client:${p}` });
      continue;
    }
    if (!pend) {
      if (!c.held) {
        c.pending = { kind: "acquire" };
        push({ process: p, type: "invoke", f: "acquire", lock, ttlMs: params.ttlMs });
      } else if (m.choice < 6) {
        c.pending = { kind: "write", grant: c.held.grant, token: c.held.token };
        push({ process: p, type: "invoke", f: "write", lock, grant: c.held.grant, token: c.held.token });
      } else {
        c.pending = { kind: "release", grant: c.held.grant };
        push({ process: p, type: "invoke", f: "release", lock, grant: c.held.grant });
      }
      continue;
    }
    if (pend.kind === "acquire") {
      c.pending = undefined;
      const free = !holder || holder.expires <= time;
      if (free && m.choice < 8) {
        const grant = `${p}:${c.attempts++}`;
        const token = nextToken++;
        holder = { grant, expires: time + params.ttlMs * MS };
        c.held = { grant, token };
        push({ process: p, type: "ok", f: "acquire", lock, grant, token });
      } else push({ process: p, type: "fail", f: "acquire", lock, error: "held" });
    } else if (pend.kind === "write") {
      if (pend.applied === undefined && m.choice < 8) {
        // The resource applies the write now (between invoke and completion): fencing.
        pend.applied = resourceMax === undefined || pend.token >= resourceMax;
        if (pend.applied) resourceMax = pend.token;
        continue;
      }
      c.pending = undefined;
      const lost = m.choice === 8 || pend.applied === undefined;
      if (lost)
        push({
          process: p,
          type: "info",
          f: "write",
          lock,
          grant: pend.grant,
          token: pend.token,
          error: "timeout",
        });
      else
        push({
          process: p,
          type: "ok",
          f: "write",
          lock,
          grant: pend.grant,
          token: pend.token,
          accepted: pend.applied,
        });
    } else {
      c.pending = undefined;
      c.held = undefined;
      const mine = holder?.grant === pend.grant && holder.expires > time;
      if (mine) holder = undefined;
      push({ process: p, type: mine ? "ok" : "fail", f: "release", lock, grant: pend.grant });
    }
  }
  return ops;
}

export const fencedParamsArb: fc.Arbitrary<FencedParams> = fc.record({
  clients: fc.integer({ min: 1, max: 4 }),
  ttlMs: fc.integer({ min: 1, max: 40 }),
  firstToken: fc.oneof(fc.bigInt({ min: 0n, max: 100n }), fc.constant(2n ** 60n)),
  moves: fc.array(moveArb(4), { maxLength: 150, size: "max" }),
});

export const fencedLockHistory: fc.Arbitrary<Op[]> = fencedParamsArb.map(simulateFencedLock);

interface ChaosClient {
  pending: Pending | undefined;
  grants: Array<{ grant: string; token: bigint | undefined; lock: string }>;
  attempts: number;
}

export interface ChaosParams {
  clients: number;
  locks: number;
  moves: Move[];
  tokens: number[];
  /** Lease times acquires ask for (ms), taken in turn; -1: the invoke does not say. */
  ttls: number[];
}

/** Faults of a server node that can end a lease early, for the chaos histories. */
const SERVER_FAULTS = ["crash", "restart", "clock-jump", "clock-drift"] as const;

export function simulateChaos(params: ChaosParams): Op[] {
  const ops: Op[] = [];
  let time = 0;
  const push = (op: Record<string, unknown>) => ops.push({ index: ops.length, time, ...op } as unknown as Op);
  const clients: ChaosClient[] = Array.from({ length: params.clients }, () => ({
    pending: undefined,
    grants: [],
    attempts: 0,
  }));
  const all: Array<{ grant: string; token: bigint | undefined; lock: string }> = [];
  let unknownGrants = 0;
  let tokenPick = 0;
  let ttlPick = 0;
  const nextToken = (): bigint | undefined => {
    const t = params.tokens[tokenPick++ % Math.max(1, params.tokens.length)];
    return t === undefined || t < 0 ? undefined : BigInt(t);
  };
  for (const m of params.moves) {
    time += m.dt * MS;
    const p = m.client % params.clients;
    const c = clients[p]!;
    const lock = m.choice % params.locks === 0 ? "L" : "M";
    if (m.choice === 9 && m.dt === 0) {
      push({ process: "nemesis", type: "info", f: "crash", node: `client:${p}` });
      continue;
    }
    if (m.choice === 9 && m.dt === 1 && p === 0) {
      const f = SERVER_FAULTS[ops.length % SERVER_FAULTS.length]!;
      push({ process: "nemesis", type: "info", f, node: ops.length % 2 === 0 ? "server:0" : "resource" });
      continue;
    }
    const pend = c.pending;
    if (!pend) {
      if (m.choice < 3) {
        c.pending = { kind: "acquire" };
        const ttl = params.ttls[ttlPick++ % Math.max(1, params.ttls.length)];
        push({
          process: p,
          type: "invoke",
          f: "acquire",
          lock,
          ...(ttl === undefined || ttl < 0 ? {} : { ttlMs: ttl }),
        });
        continue;
      }
      const pool = m.choice < 6 ? c.grants : all;
      const g =
        pool.length > 0 && m.choice !== 6
          ? pool[(m.dt + m.choice) % pool.length]!
          : { grant: `u:${unknownGrants++}`, token: nextToken(), lock };
      if (m.choice === 8 && c.grants.length > 0) {
        c.pending = { kind: "release", grant: g.grant };
        push({ process: p, type: "invoke", f: "release", lock: g.lock, grant: g.grant });
      } else {
        c.pending = { kind: "write", grant: g.grant, token: g.token ?? -1n };
        const tok = g.token === undefined ? {} : { token: g.token };
        push({ process: p, type: "invoke", f: "write", lock: g.lock, grant: g.grant, ...tok });
        (c.pending as { lock?: string }).lock = g.lock;
      }
      continue;
    }
    const openLock = (ops.findLast((o) => o.process === p && o.type === "invoke") as { lock: string }).lock;
    c.pending = undefined;
    if (pend.kind === "acquire") {
      if (m.choice < 5) {
        const grant = `${p}:${c.attempts++}`;
        const token = nextToken();
        const g = { grant, token, lock: openLock };
        c.grants.push(g);
        all.push(g);
        push({
          process: p,
          type: "ok",
          f: "acquire",
          lock: openLock,
          grant,
          ...(token === undefined ? {} : { token }),
        });
      } else if (m.choice < 8) push({ process: p, type: "fail", f: "acquire", lock: openLock });
      else push({ process: p, type: "info", f: "acquire", lock: openLock });
    } else if (pend.kind === "write") {
      const tok = pend.token < 0n ? {} : { token: pend.token };
      const base = { process: p, f: "write", lock: openLock, grant: pend.grant, ...tok };
      if (m.choice < 6) push({ ...base, type: "ok", accepted: true });
      else if (m.choice < 8) push({ ...base, type: "ok", accepted: false });
      else if (m.choice < 9) push({ ...base, type: "info" });
      else push({ ...base, type: "fail" });
    } else {
      push({
        process: p,
        type: m.choice < 5 ? "ok" : "fail",
        f: "release",
        lock: openLock,
        grant: pend.grant,
      });
    }
  }
  return ops;
}

export const chaosHistory: fc.Arbitrary<Op[]> = fc
  .record({
    clients: fc.integer({ min: 1, max: 4 }),
    locks: fc.integer({ min: 1, max: 2 }),
    moves: fc.array(moveArb(4), { maxLength: 60, size: "max" }),
    tokens: fc.array(fc.integer({ min: -1, max: 6 }), { minLength: 1, maxLength: 12 }),
    ttls: fc.array(fc.integer({ min: -1, max: 12 }), { minLength: 1, maxLength: 4 }),
  })
  .map(simulateChaos);

/**
 * chaosHistory with the resource's apply order (`seq`) on accepted write completions. Apply
 * points are drawn inside each call (consistent with real time, as a correct resource gives)
 * or, for some histories, in any order; seqs are unique and start anywhere up to beyond 2^53.
 * In "some" histories a few accepted writes lack seq (a mixed history). Some `info` writes were
 * applied all the same (a write that arrived after its client gave up, found in the resource's
 * log): they get a seq too, applied at any point after their invoke, past the history's end too.
 */
export const chaosHistoryWithSeq: fc.Arbitrary<Op[]> = chaosHistory.chain((ops) => {
  const open = new Map<unknown, number>();
  const applied: { invoke: number; done: number; unseen: boolean }[] = [];
  for (const op of ops) {
    if (op.process === "nemesis" || op.f !== "write") continue;
    if (op.type === "invoke") open.set(op.process, op.index);
    else {
      const invoke = open.get(op.process);
      open.delete(op.process);
      if (invoke === undefined) continue;
      if (op.type === "ok" && op.accepted !== false) applied.push({ invoke, done: op.index, unseen: false });
      if (op.type === "info") applied.push({ invoke, done: op.index, unseen: true });
    }
  }
  const n = applied.length;
  // An unseen write may have been applied up to this far past the end (in op positions).
  const end = 2 * ops.length;
  return fc
    .record({
      inCall: fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
      shuffled: fc.boolean(),
      order: fc.shuffledSubarray([...applied.keys()], { minLength: n, maxLength: n }),
      dropped: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      mixed: fc.constantFrom(false, false, true),
      // Which info writes the resource applied (the others never arrived).
      arrived: fc.array(fc.boolean(), { minLength: n, maxLength: n }),
      base: fc.oneof(fc.bigInt({ min: 0n, max: 100n }), fc.bigInt({ min: 2n ** 53n, max: 2n ** 60n })),
    })
    .map(({ inCall, shuffled, order, dropped, mixed, arrived, base }) => {
      const kept = (k: number) => !applied[k]!.unseen || arrived[k]!;
      const point = (k: number) => {
        const a = applied[k]!;
        return a.invoke + inCall[k]! * ((a.unseen ? end : a.done) - a.invoke);
      };
      const rank = (shuffled ? order : [...applied.keys()].sort((a, b) => point(a) - point(b))).filter(kept);
      const seqAt = new Map<number, bigint>();
      rank.forEach((k, i) => {
        if (!(mixed && dropped[k])) seqAt.set(applied[k]!.done, base + BigInt(i) * 3n);
      });
      return ops.map((op) => (seqAt.has(op.index) ? ({ ...op, seq: seqAt.get(op.index) } as Op) : op));
    });
});
