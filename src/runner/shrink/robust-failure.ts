/**
 * Failures with timing margins. A greedy shrinker drives every duration to the smallest value
 * that still fails, so a shrunk simulator counterexample fails by a hair: a pause 0.1 ms
 * longer than the lease needed, two clients that start at the same instant and a latency
 * draw that decides who wins. Replayed on real servers, where a process starts, stops and
 * resumes a few milliseconds off, such a schedule passes.
 *
 * A schedule fails *robustly* (with margin M) when it fails, with the same kind of
 * violation, also in each of its perturbations: other latency draws, each client starting
 * M later, each fault's duration or offset M smaller, each timed fault M earlier or later.
 * Shrinking with that as the failure condition keeps margins of at least M everywhere the
 * timing matters; `widenMargins` then lengthens pauses well past the lease (pause ≥ 2 × TTL)
 * where the failure allows, so the result fails on real servers, not by a hair. Each fault
 * kind says which of its variants a margin must survive (`perturbed` in src/schedule/faults/).
 */
import type { Op } from "../../history/op.js";
import { FAULT_DESCRIPTORS, perturbedFault } from "../../schedule/faults/index.js";
import type { Fault, Schedule } from "../../schedule/schedule.js";
import type { Target } from "../../targets/target.js";
import { probeViolation, type ViolationKind } from "../same-violation.js";
import type { ShrinkProbe } from "./shrink.js";

/** Default margin (ms): well above the jitter of starting, stopping and resuming a process. */
export const DEFAULT_MARGIN_MS = 50;

/** Extra latency draws tried (other seeds with at least this much latency spread). */
const SEEDS = 2;
const MIN_LATENCY_SPREAD_MS = 3;

/** `s` with client `index` starting `byMs` later (unchanged if it has no cycle). */
export function clientLater(s: Schedule, index: number, byMs: number): Schedule {
  const c = s.clients[index];
  const first = c?.cycles[0];
  if (c === undefined || first === undefined) return s;
  const later = { ...c, cycles: [{ ...first, thinkMs: first.thinkMs + byMs }, ...c.cycles.slice(1)] };
  return { ...s, clients: s.clients.map((x, j) => (j === index ? later : x)) };
}

/** When client `index` starts: the think time of its first cycle (null if it has no cycle). */
function startOf(s: Schedule, index: number): number | null {
  return s.clients[index]?.cycles[0]?.thinkMs ?? null;
}

/**
 * `s` with client `index` losing the race of its start: starting just after every client
 * that starts within one message latency of it (so that their first requests reach the
 * servers first), or null when no other client starts that close. Which of two clients that
 * start together wins is decided in the simulator by a latency draw, and on real servers by
 * which process ran first: a counterexample must fail either way.
 */
export function clientLosesStartRace(s: Schedule, index: number): Schedule | null {
  const start = startOf(s, index);
  if (start === null) return null;
  const windowMs = s.options.latencyMs.max + 1;
  let last = Number.NEGATIVE_INFINITY;
  s.clients.forEach((_, j) => {
    const t = startOf(s, j);
    if (j !== index && t !== null && Math.abs(t - start) <= windowMs) last = Math.max(last, t);
  });
  return last === Number.NEGATIVE_INFINITY ? null : clientLater(s, index, last - start + windowMs);
}

/** Client ids in the order their first grant was acknowledged in a failing run's history. */
export function grantOrder(s: Schedule, ops: readonly Op[] | undefined): number[] {
  if (ops === undefined) return [];
  const order: number[] = [];
  for (const op of ops) {
    if (
      op.f === "acquire" &&
      op.type === "ok" &&
      typeof op.process === "number" &&
      !order.includes(op.process)
    )
      order.push(op.process);
  }
  for (const c of s.clients) if (!order.includes(c.id)) order.push(c.id);
  return order;
}

/**
 * `s` with its start races settled as the failing run `ops` settled them, or null when no two
 * clients start within `marginMs` of each other. Such clients race for their first grant, and
 * on real servers the process that happens to run first wins: the one that was granted first in
 * `ops` keeps its start, and each that came after starts at least 2 × `marginMs` after the one
 * before it (never sooner than it did).
 */
export function withStartRacesSettled(s: Schedule, ops: readonly Op[], marginMs: number): Schedule | null {
  if (marginMs <= 0) return null;
  const starts = s.clients.map((_, i) => startOf(s, i));
  const racing = (i: number): boolean =>
    starts[i] !== null &&
    starts.some((t, j) => j !== i && t !== null && Math.abs(t - starts[i]!) <= marginMs);
  const order = grantOrder(s, ops)
    .map((id) => s.clients.findIndex((c) => c.id === id))
    .filter((i) => i >= 0 && racing(i));
  if (order.length < 2) return null;
  let out = s;
  let previous = Number.NEGATIVE_INFINITY;
  for (const i of order) {
    const start = Math.max(starts[i]!, previous + 2 * marginMs);
    if (start > starts[i]!) out = clientLater(out, i, start - starts[i]!);
    previous = start;
  }
  return out === s ? null : out;
}

/**
 * The perturbations of `s` with margin `marginMs` (distinct from `s` and from each other):
 * each timing moved alone (and each client that starts together with another losing that
 * race), and then moved together — another latency draw with every fault's effect `marginMs`
 * smaller, alone, with each client starting `marginMs` later and with each losing its start
 * race — since on real servers everything is a little off at once.
 */
export function perturbations(s: Schedule, marginMs: number): Schedule[] {
  const out: Schedule[] = [];
  const { min, max } = s.options.latencyMs;
  const latencyMs = { min, max: Math.max(max, min + MIN_LATENCY_SPREAD_MS) };
  const reseeded = (k: number): Schedule => ({
    ...s,
    seed: (s.seed + k) >>> 0,
    options: { ...s.options, latencyMs },
  });
  for (let k = 1; k <= SEEDS; k++) out.push(reseeded(k));
  for (let i = 0; i < s.clients.length; i++) out.push(clientLater(s, i, marginMs));
  for (let i = 0; i < s.clients.length; i++) {
    const lost = clientLosesStartRace(s, i);
    if (lost !== null) out.push(lost);
  }
  s.faults.forEach((f, i) => {
    for (const g of perturbedFault(f, marginMs)) {
      out.push({ ...s, faults: s.faults.map((x, j) => (j === i ? g : x)) });
    }
  });
  const weaker = {
    ...reseeded(SEEDS + 1),
    faults: s.faults.map((f) => perturbedFault(f, marginMs)[0] ?? f),
  };
  out.push(weaker);
  for (let i = 0; i < s.clients.length; i++) {
    out.push(clientLater(weaker, i, marginMs));
    const lost = clientLosesStartRace(weaker, i);
    if (lost !== null) out.push(lost);
  }
  const seen = new Set([JSON.stringify(s)]);
  return out.filter((p) => {
    const key = JSON.stringify(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Whether `s` fails with `kind` on `target` and in every perturbation; the evidence is that
 * of `s` itself. Stops at the first perturbation that passes.
 */
export async function probeRobust(
  target: Target,
  s: Schedule,
  kind: ViolationKind,
  marginMs: number,
): Promise<ShrinkProbe> {
  const own = await probeViolation(target, s, kind);
  if (!own.fails) return own;
  for (const p of perturbations(s, marginMs)) {
    if (!(await probeViolation(target, p, kind)).fails) return { fails: false };
  }
  return own;
}

/** The pause faults' durations, lengthened to at least `durationMs` (null if none is shorter). */
function withPausesAtLeast(s: Schedule, durationMs: number): Schedule | null {
  let changed = false;
  const faults = s.faults.map((f) => {
    if (!FAULT_DESCRIPTORS[f.kind].widenable || !("durationMs" in f) || f.durationMs >= durationMs) return f;
    changed = true;
    return { ...f, durationMs };
  });
  return changed ? { ...s, faults } : null;
}

/**
 * Wider versions of `s` to try, in this order: every pause at least 2 × TTL, at least TTL
 * plus four margins, twice as long as it is.
 */
export function widenings(s: Schedule, marginMs: number): Schedule[] {
  const ttl = s.options.ttlMs;
  const out: Schedule[] = [];
  for (const d of [2 * ttl, ttl + 4 * marginMs]) {
    const w = withPausesAtLeast(s, d);
    if (w !== null) out.push(w);
  }
  const widenable = (f: Fault) => FAULT_DESCRIPTORS[f.kind].widenable;
  const doubled = s.faults.some(widenable)
    ? {
        ...s,
        faults: s.faults.map((f) =>
          widenable(f) && "durationMs" in f ? { ...f, durationMs: 2 * f.durationMs } : f,
        ),
      }
    : null;
  if (doubled !== null) out.push(doubled);
  return out;
}

/**
 * `s` with wider pauses (the first widening that still fails robustly), else `s`. Each
 * widening tried costs one robust probe.
 */
export async function widenMargins(
  target: Target,
  s: Schedule,
  kind: ViolationKind,
  marginMs: number,
): Promise<{ schedule: Schedule; widened: boolean }> {
  for (const w of widenings(s, marginMs)) {
    if ((await probeRobust(target, w, kind, marginMs)).fails) return { schedule: w, widened: true };
  }
  return { schedule: s, widened: false };
}
