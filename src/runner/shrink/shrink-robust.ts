/**
 * Shrinking with timing margins, for deterministic targets (the simulator). First the plain
 * greedy shrink to the bare minimum (cheap: one run a candidate); then that minimum is given
 * room — longer pauses, a client starting later — until it fails robustly
 * (robust-failure.ts), and shrunk again with "fails robustly" as the condition; last, pauses
 * are widened where the failure allows. When neither the minimum nor the input can be given
 * room (nor `alsoFrom`, e.g. the schedule as first found, before any shrinking), the result
 * is the bare minimum with `robust: false`, and the caller says so. Each of the two
 * shrinking passes has a budget of its own (see ROBUST_TIME_FACTOR).
 */

import { serverRefs } from "../../generators/nodes.js";
import type { Op } from "../../history/op.js";
import { clientOf } from "../../schedule/faults/numbers.js";
import { MAX_WRITES_PER_CYCLE, type Schedule } from "../../schedule/schedule.js";
import type { Target } from "../../targets/target.js";
import { probeViolation, type ViolationKind } from "../same-violation.js";
import { clientLater, grantOrder, probeRobust, widenings, widenMargins } from "./robust-failure.js";
import {
  budgetLeft,
  type FailureEvidence,
  type ShrinkBudget,
  type ShrinkProbe,
  shrinkSchedule,
} from "./shrink.js";

export interface RobustShrinkResult {
  /** Whether `schedule` fails robustly; when false it is the bare minimum (no margins). */
  robust: boolean;
  schedule: Schedule;
  /** Candidates tried (each a robust probe: one run plus its perturbations). */
  runs: number;
  steps: number;
  budgetExhausted: boolean;
}

/** Clock jumps of at least `ms` either way (a lease then expires, or lives on, at once). */
function withClockJumpsAtLeast(s: Schedule, ms: number): Schedule | null {
  if (!s.faults.some((f) => f.kind === "clock-jump" && Math.abs(f.deltaMs) < ms)) return null;
  const faults = s.faults.map((f) =>
    f.kind === "clock-jump" && Math.abs(f.deltaMs) < ms ? { ...f, deltaMs: f.deltaMs < 0 ? -ms : ms } : f,
  );
  return { ...s, faults };
}

/**
 * Holds twice as long, but none beyond `capMs` (below the TTL: a hold past the lease would be
 * a different failure, one that needs no fault); null if none changes.
 */
function withLongerHolds(s: Schedule, capMs: number): Schedule | null {
  let changed = false;
  const clients = s.clients.map((c) => ({
    ...c,
    cycles: c.cycles.map((cy) => {
      const holdMs = Math.max(cy.holdMs, Math.min(2 * cy.holdMs, capMs));
      if (holdMs !== cy.holdMs) changed = true;
      return { ...cy, holdMs };
    }),
  }));
  return changed ? { ...s, clients } : null;
}

/**
 * For a lock that renews its lease: every hold `factor` times as long with `factor` times the
 * writes (capped at MAX_WRITES_PER_CYCLE), so the writes it made stay where they were (the gap
 * between two is the same) and more follow. A holder whose lease ran out then writes again
 * after the new holder did, instead of only racing it once. Null if nothing changes.
 */
function withMoreWrites(s: Schedule, factor: number): Schedule | null {
  let changed = false;
  const clients = s.clients.map((c) => ({
    ...c,
    cycles: c.cycles.map((cy) => {
      if (cy.holdMs === 0 || cy.writes === 0) return cy;
      const writes = Math.min(MAX_WRITES_PER_CYCLE, cy.writes * factor);
      if (writes === cy.writes) return cy;
      changed = true;
      return { ...cy, holdMs: Math.round((cy.holdMs * writes) / cy.writes), writes };
    }),
  }));
  return changed ? { ...s, clients } : null;
}

const isClient = (n: string): boolean => clientOf(n) !== undefined;
const isLockServer = (n: string): boolean => n.startsWith("server:");

/**
 * For a lock that renews its lease: every partition between clients and some lock servers
 * made to cut those clients off from every lock server, for at least `durationMs`. A client
 * that still reaches one member may renew through it (its keep-alives go to a member drawn
 * once), and one cut off a little past its lease is renewed again by a keep-alive sent just
 * after a heal that comes a margin sooner. Null if nothing changes.
 */
function withClientsIsolated(s: Schedule, durationMs: number): Schedule | null {
  const all = serverRefs(s.options.servers, false);
  let changed = false;
  const faults = s.faults.map((f) => {
    if (f.kind !== "partition") return f;
    const [clients, servers] = f.a.every(isClient) ? [f.a, f.b] : [f.b, f.a];
    if (!clients.every(isClient) || !servers.every(isLockServer)) return f;
    const cut = { ...f, a: [...clients], b: all, durationMs: Math.max(f.durationMs, durationMs) };
    if (JSON.stringify(cut) === JSON.stringify(f)) return f;
    changed = true;
    return cut;
  });
  return changed ? { ...s, faults } : null;
}

/** Every timed fault `byMs` later (one that came right after what it hits gets some room). */
function withTimedFaultsLater(s: Schedule, byMs: number): Schedule | null {
  if (!s.faults.some((f) => "at" in f)) return null;
  return { ...s, faults: s.faults.map((f) => ("at" in f ? { ...f, at: f.at + byMs } : f)) };
}

/** Clients start 2 × margin apart, in the order of `ids` (first starts first). */
function staggered(s: Schedule, ids: readonly number[], marginMs: number): Schedule {
  let out = s;
  ids.forEach((id, k) => {
    const index = out.clients.findIndex((c) => c.id === id);
    if (k > 0) out = clientLater(out, index, 2 * marginMs * k);
  });
  return out;
}

/**
 * Variants of a schedule that fails only by a hair, to find one that fails with margins:
 * longer pauses, clock jumps of a whole TTL, longer holds (below the TTL), timed faults later; clients that started at the same instant spread apart, in the order they
 * got the lock in the failing run, or one of them later, or in id order either way; and for a
 * lock that renews its lease, last, longer partitions and holds with more writes.
 */
function* roomier(
  s: Schedule,
  marginMs: number,
  ops: readonly Op[] | undefined,
  renews: boolean,
): Generator<Schedule> {
  const ids = s.clients.map((c) => c.id);
  const orders = [grantOrder(s, ops), ids, [...ids].reverse()].filter((o) => o.length > 1);
  const spread = [
    ...orders.map((o) => staggered(s, o, marginMs)),
    ...s.clients.map((_, i) => clientLater(s, i, 2 * marginMs)).filter((x) => x !== s),
  ];
  const bases = [s, ...spread].flatMap((b) => {
    const variants = [b, withTimedFaultsLater(b, 2 * marginMs)];
    const held = withLongerHolds(b, b.options.ttlMs - 4 * marginMs);
    if (held !== null) variants.push(held, withTimedFaultsLater(held, 2 * marginMs));
    return variants.filter((v): v is Schedule => v !== null);
  });
  for (const base of bases) {
    if (base !== s) yield base;
    yield* widenings(base, marginMs);
    const jumps = withClockJumpsAtLeast(base, base.options.ttlMs);
    if (jumps !== null) yield jumps;
  }
  if (renews) for (const base of bases) yield* renewingRoom(base);
}

/**
 * Room that only a lock that renews its lease may be given, tried after the rest (so the
 * counterexamples of other locks stay what they were): holds past the TTL with more writes,
 * a client cut off from every lock server for two TTLs or more, and both.
 */
function* renewingRoom(s: Schedule): Generator<Schedule> {
  const isolated = withClientsIsolated(s, 2 * s.options.ttlMs);
  for (const base of isolated === null ? [s] : [s, isolated]) {
    if (base !== s) yield base;
    for (const factor of [2, 4]) {
      const more = withMoreWrites(base, factor);
      if (more !== null) yield more;
    }
  }
}

const ROBUST_TIME_FACTOR = 10;

export async function shrinkRobustly(
  target: Target,
  schedule: Schedule,
  kind: ViolationKind,
  marginMs: number,
  budget: ShrinkBudget,
  evidence?: FailureEvidence,
  onRun?: () => void,
  alsoFrom: readonly Schedule[] = [],
): Promise<RobustShrinkResult> {
  const exactProbe = async (s: Schedule) => {
    onRun?.();
    return probeViolation(target, s, kind);
  };
  const robustProbe = async (s: Schedule) => {
    onRun?.();
    return probeRobust(target, s, kind, marginMs);
  };
  const exact = await shrinkSchedule(schedule, exactProbe, budget, evidence);
  // The pass with margins has a budget of its own: as many candidates, but each is a dozen
  // runs or more, so ROBUST_TIME_FACTOR times the time (a time limit that cuts it short
  // would make the result depend on the machine's load).
  const robustBudget: ShrinkBudget = {
    ...(budget.maxRuns === undefined ? {} : { maxRuns: budget.maxRuns }),
    ...(budget.timeLimitMs === undefined ? {} : { timeLimitMs: budget.timeLimitMs * ROBUST_TIME_FACTOR }),
  };
  const started = Date.now();
  let runs = 0;
  const outOfTime = () => (budgetLeft(robustBudget, started, runs).timeLimitMs ?? 1) <= 0;
  for (const from of [exact.schedule, schedule, ...alsoFrom]) {
    let start: Schedule | null = null;
    let startProbe: ShrinkProbe = { fails: false };
    runs++;
    const ops = (await exactProbe(from)).evidence?.ops;
    for (const r of [from, ...roomier(from, marginMs, ops, target.renews === true)]) {
      if (outOfTime()) break;
      runs++;
      startProbe = await robustProbe(r);
      if (startProbe.fails) {
        start = r;
        break;
      }
    }
    if (start === null) continue;
    const shrunk = await shrinkSchedule(
      start,
      robustProbe,
      budgetLeft(robustBudget, started, runs),
      startProbe.evidence,
    );
    const wide = await widenMargins(target, shrunk.schedule, kind, marginMs);
    return {
      robust: true,
      schedule: wide.schedule,
      runs: exact.runs + runs + shrunk.runs,
      steps: exact.steps + shrunk.steps,
      budgetExhausted: exact.budgetExhausted || shrunk.budgetExhausted,
    };
  }
  return {
    robust: false,
    schedule: exact.schedule,
    runs: exact.runs + runs,
    steps: exact.steps,
    budgetExhausted: exact.budgetExhausted,
  };
}
