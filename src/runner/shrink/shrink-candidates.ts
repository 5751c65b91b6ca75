/**
 * Smaller variants of a schedule, biggest cuts first: drop a client (and the faults aimed
 * at it), merge a call's chained pauses into one (merge-pauses.ts), drop chunks of faults,
 * drop cycles, start every client earlier together, then
 * shrink numbers (durations, offsets, think and hold times, writes) toward their minimum and
 * partitions toward fewer nodes (each kind's moves: `smaller` in src/schedule/faults/<kind>.ts).
 * Candidates are produced lazily; the shrinker keeps the first that still fails. (Candidates
 * aimed by a failing run's history: shrink-focus.ts.)
 */
import {
  FAULT_DESCRIPTORS,
  remapFaultClients,
  smallerFaults,
  smallerInts,
} from "../../schedule/faults/index.js";
import type { ClientPlan, Cycle, Fault, NodeRef, Schedule } from "../../schedule/schedule.js";
import { withPausesMerged } from "./merge-pauses.js";

export { smallerInts };

/** `ref` after client `removed` is gone (null if it named that client); higher ids move down when `renumber`. */
function mapNode(ref: NodeRef, removed: number, renumber: boolean): NodeRef | null {
  const m = /^client:(\d+)$/.exec(ref);
  if (m === null) return ref;
  const id = Number(m[1]);
  if (id === removed) return null;
  return renumber && id > removed ? `client:${id - 1}` : ref;
}

/** The fault once client `removed` is gone; null if it no longer applies. */
export function faultWithoutClient(f: Fault, removed: number, renumber: boolean): Fault | null {
  return remapFaultClients(f, {
    node: (ref) => mapNode(ref, removed, renumber),
    client: (id) => (id === removed ? null : renumber && id > removed ? id - 1 : id),
  });
}

/**
 * The schedule without the client at position `index` and the faults aimed only at it.
 * With `renumber`, higher client ids move down by one (faults follow); without, ids keep
 * their gaps, which keeps every other node's name — and so the simulator's per-node random
 * streams — unchanged.
 */
export function withoutClient(s: Schedule, index: number, renumber = true): Schedule {
  const removed = s.clients[index]?.id ?? index;
  const clients: ClientPlan[] = s.clients
    .filter((_, i) => i !== index)
    .map((c) => (renumber && c.id > removed ? { ...c, id: c.id - 1 } : c));
  const faults = s.faults
    .map((f) => faultWithoutClient(f, removed, renumber))
    .filter((f): f is Fault => f !== null);
  return { ...s, clients, faults };
}

/** Client ids 0 … n-1 again after clients were dropped without renumbering. */
export function withCompactIds(s: Schedule): Schedule {
  let out = s;
  for (let expected = 0; expected < out.clients.length; expected++) {
    const id = out.clients[expected]?.id ?? expected;
    if (id === expected) continue;
    // Move `id` down to `expected` by pretending the gap's ids were removed one at a time.
    const shift = id - expected;
    const rename = (ref: NodeRef): NodeRef => (ref === `client:${id}` ? `client:${id - shift}` : ref);
    out = {
      ...out,
      clients: out.clients.map((c) => (c.id === id ? { ...c, id: expected } : c)),
      faults: out.faults.map((f) => renameClient(f, id, expected, rename)),
    };
  }
  return out;
}

function renameClient(f: Fault, from: number, to: number, rename: (r: NodeRef) => NodeRef): Fault {
  return remapFaultClients(f, { node: rename, client: (id) => (id === from ? to : id) }) ?? f;
}

/**
 * The schedule with every pause twice as long. Offered only together with dropping a client
 * or a fault (a net shrink: the weight counts whole clients and faults far above
 * milliseconds): a counterexample often needs a helper client or a second small pause just
 * to line up timing, and a longer pause removes that need; later steps shorten it again.
 */
function withLongerPauses(s: Schedule): Schedule | null {
  const isPause = (f: Fault) => FAULT_DESCRIPTORS[f.kind].pause && "durationMs" in f;
  if (!s.faults.some(isPause)) return null;
  const faults = s.faults.map((f) =>
    isPause(f) && "durationMs" in f ? { ...f, durationMs: 2 * f.durationMs } : f,
  );
  return { ...s, faults };
}

/** Each client of `s` for which `which(id)` holds dropped, in three forms, the last client first. */
function* dropClients(s: Schedule, which: (id: number) => boolean = () => true): Generator<Schedule> {
  if (s.clients.length <= 1) return;
  for (let i = s.clients.length - 1; i >= 0; i--) {
    if (!which(s.clients[i]!.id)) continue;
    const fewer = withoutClient(s, i, false);
    yield fewer;
    yield withoutClient(s, i, true);
    const stretched = withLongerPauses(fewer);
    if (stretched !== null) yield stretched;
  }
}

function* compactIds(s: Schedule): Generator<Schedule> {
  if (s.clients.some((c, i) => c.id !== i)) yield withCompactIds(s);
}

/** Delta debugging over the fault list: drop halves, then quarters, … then single faults. */
function* dropFaults(s: Schedule): Generator<Schedule> {
  const n = s.faults.length;
  for (let chunk = n; chunk >= 1; chunk = Math.floor(chunk / 2)) {
    for (let start = 0; start < n; start += chunk) {
      const fewer = { ...s, faults: [...s.faults.slice(0, start), ...s.faults.slice(start + chunk)] };
      yield fewer;
      if (chunk === 1) {
        const stretched = withLongerPauses(fewer);
        if (stretched !== null) yield stretched;
      }
    }
    if (chunk === 1) break;
  }
}

function withCycles(s: Schedule, clientIndex: number, cycles: Cycle[]): Schedule {
  return { ...s, clients: s.clients.map((c, i) => (i === clientIndex ? { ...c, cycles } : c)) };
}

/**
 * The client's `pause-at` and `pause-in-call` faults fire one occurrence earlier (after one of
 * its cycles is dropped).
 */
function withEarlierCheckpoints(s: Schedule, clientId: number): Schedule | null {
  let changed = false;
  const faults = s.faults.map((f) => {
    if (!FAULT_DESCRIPTORS[f.kind].counted || !("occurrence" in f)) return f;
    if (f.client !== clientId || f.occurrence === 0) return f;
    changed = true;
    return { ...f, occurrence: f.occurrence - 1 };
  });
  return changed ? { ...s, faults } : null;
}

function* dropCycles(s: Schedule): Generator<Schedule> {
  for (let ci = 0; ci < s.clients.length; ci++) {
    const client = s.clients[ci];
    const cycles = client?.cycles ?? [];
    if (client === undefined || cycles.length <= 1) continue;
    // Later cycles first: early ones are usually what sets the stage.
    const half = Math.floor(cycles.length / 2);
    if (half >= 1) yield withCycles(s, ci, cycles.slice(0, cycles.length - half));
    for (let j = cycles.length - 1; j >= 0; j--) {
      const fewer = withCycles(
        s,
        ci,
        cycles.filter((_, k) => k !== j),
      );
      yield fewer;
      // Dropping an early cycle shifts the client's checkpoint count: keep the pause aimed.
      const aimed = withEarlierCheckpoints(fewer, client.id);
      if (aimed !== null) yield aimed;
    }
  }
}

const CHECKPOINTS_BY_LIKELIHOOD = ["acquired", "before-write", "acquire-sent", "before-release"] as const;

/**
 * A client pause at a fixed time becomes a pause at a checkpoint of that client's algorithm:
 * the same GC pause, but aimed at a point in the client's own progress, so that it stays
 * aimed when earlier cycles and other clients are dropped.
 */
function* pausesToCheckpoints(s: Schedule): Generator<Schedule> {
  for (let i = 0; i < s.faults.length; i++) {
    const f = s.faults[i];
    if (f?.kind !== "pause") continue;
    const m = /^client:(\d+)$/.exec(f.node);
    if (m === null) continue;
    const client = Number(m[1]);
    for (let occurrence = 0; occurrence < 3; occurrence++) {
      for (const checkpoint of CHECKPOINTS_BY_LIKELIHOOD) {
        yield withFault(s, i, { kind: "pause-at", client, checkpoint, occurrence, durationMs: f.durationMs });
      }
    }
  }
}

function withFault(s: Schedule, index: number, f: Fault): Schedule {
  return { ...s, faults: s.faults.map((g, i) => (i === index ? f : g)) };
}

function* shrinkFaults(s: Schedule): Generator<Schedule> {
  for (let i = 0; i < s.faults.length; i++) {
    const f = s.faults[i];
    if (f === undefined) continue;
    for (const g of smallerFaults(f)) yield withFault(s, i, g);
  }
}

function* shrinkCycles(s: Schedule): Generator<Schedule> {
  for (let ci = 0; ci < s.clients.length; ci++) {
    const cycles = s.clients[ci]?.cycles ?? [];
    for (let j = 0; j < cycles.length; j++) {
      const cy = cycles[j];
      if (cy === undefined) continue;
      const put = (c: Cycle) =>
        withCycles(
          s,
          ci,
          cycles.map((x, k) => (k === j ? c : x)),
        );
      for (const w of smallerInts(cy.writes, 0)) yield put({ ...cy, writes: w });
      for (const t of smallerInts(cy.thinkMs, 0)) yield put({ ...cy, thinkMs: t });
      for (const h of smallerInts(cy.holdMs, 0)) yield put({ ...cy, holdMs: h });
    }
  }
}

/**
 * Every client starts earlier by the same amount (its first think is shorter), and timed
 * faults come earlier with them: the clients' timing relative to each other, which is what
 * a race needs, stays as it was, where shortening one client's think alone would change it.
 */
function* startEarlier(s: Schedule): Generator<Schedule> {
  const firstThinks = s.clients.map((c) => c.cycles[0]?.thinkMs ?? 0);
  const common = Math.min(...firstThinks);
  for (const v of smallerInts(common, 0)) {
    const by = common - v;
    yield {
      ...s,
      clients: s.clients.map((c) =>
        c.cycles.length === 0
          ? c
          : { ...c, cycles: c.cycles.map((cy, k) => (k === 0 ? { ...cy, thinkMs: cy.thinkMs - by } : cy)) },
      ),
      faults: s.faults.map((f) => ("at" in f ? { ...f, at: Math.max(0, f.at - by) } : f)),
    };
  }
}

/** A client that repeats its cycles until the horizon runs them once instead. */
function* stopRepeating(s: Schedule): Generator<Schedule> {
  for (let ci = 0; ci < s.clients.length; ci++) {
    const client = s.clients[ci];
    if (client?.repeat !== true) continue;
    const { repeat: _, ...once } = client;
    yield { ...s, clients: s.clients.map((c, i) => (i === ci ? once : c)) };
  }
}

/**
 * Every candidate, in the order the shrinker tries them. First each client the failing run's
 * anomaly does not involve is dropped (`involved`: the clients whose grants it names): that is
 * the biggest single cut. `aimed` (candidates aimed by the failing run, shrink-focus.ts) come
 * next. Dropping an involved client takes the clash itself away, so it comes last; tried first,
 * it cost each round of a real shrink of two clashing clients up to six runs that could only
 * pass.
 */
export function* shrinkCandidates(
  s: Schedule,
  aimed: Iterable<Schedule> = [],
  involved: ReadonlySet<number> = new Set(),
): Generator<Schedule> {
  yield* dropClients(s, (id) => !involved.has(id));
  yield* aimed;
  const merged = withPausesMerged(s);
  if (merged !== null) yield merged;
  yield* dropFaults(s);
  yield* pausesToCheckpoints(s);
  yield* dropCycles(s);
  yield* stopRepeating(s);
  yield* startEarlier(s);
  yield* shrinkFaults(s);
  yield* shrinkCycles(s);
  yield* compactIds(s);
  yield* dropClients(s, (id) => involved.has(id));
}
