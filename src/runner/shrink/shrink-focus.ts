/**
 * Candidates aimed by the violation itself. A failing run's anomaly names the grants that
 * clashed (the stale holder and the newer one); everything else in the schedule only set
 * the stage. These candidates keep just the clients and cycles behind those grants and
 * re-time them so the clash can still happen:
 * - dropping a client or an earlier cycle changes when the others get the lock (a client
 *   that only held the lock for a moment made another wait), so each kept client's first
 *   kept cycle starts when its acquire was sent in the failing run, or no earlier than the
 *   older grant was handed out, or (for the oldest) just in time to be granted when it was;
 * - faults follow: those that hit dropped clients or dropped cycles go (except a client's clock
 *   step or drift before a kept cycle: the clock stays changed), timed faults shift with their
 *   client, checkpoint pauses are renumbered to the cycles left; then the same
 *   with pauses twice as long (re-timed, a client seldom retries at the very moment it did);
 * - or every fault is replaced by one pause of the violating holder (the classic stale-holder
 *   pause: right after it acquired, or at the checkpoint the schedule's pauses use), or of
 *   the other holder, as long as the longest, all together, or twice the longest;
 * - then all of these with the clients renumbered 0, 1, … (see the end of focusCandidates).
 * Shrinking the times back down is left to the ordinary candidates.
 */
import type { Anomaly } from "../../checkers/verdict.js";
import { isNemesisOp, type Op } from "../../history/op.js";
import { changesClockForGood, faultTargetClient } from "../../schedule/faults/index.js";
import {
  type Checkpoint,
  type ClientPlan,
  type Cycle,
  type Fault,
  isTimedFault,
  type Schedule,
} from "../../schedule/schedule.js";
import {
  type CycleSpan,
  callHits,
  checkpointHits,
  cycleHit,
  cycleSpans,
  firedAtMs,
  type HistorySpans,
} from "./cycle-spans.js";
import { faultWithoutClient, withCompactIds } from "./shrink-candidates.js";

/** A failing run: its history and the anomalies that make it fail. */
export interface FailureEvidence {
  ops: readonly Op[];
  anomalies: readonly Anomaly[];
}

/** Anomalies looked at per run: the first few are enough, each yields a handful of runs. */
const ANOMALIES_FOCUSED = 3;

/** Which cycles of which clients to keep: client id → ascending cycle positions. */
type Keep = Map<number, number[]>;

/** The cycles behind an anomaly's grants, the violating holder's (its first op's) first. */
function involvedSpans(ops: readonly Op[], anomaly: Anomaly, spans: HistorySpans): CycleSpan[] {
  const out: CycleSpan[] = [];
  for (const index of anomaly.ops) {
    const op = ops[index];
    if (op === undefined || isNemesisOp(op) || op.grant === undefined) continue;
    const span = spans.byGrant.get(op.grant);
    if (span !== undefined && !out.includes(span)) out.push(span);
  }
  return out;
}

/**
 * The plan cycle a client ran as its `position`-th cycle of the run: a client that repeats its
 * cycles (as every client of a real hunt does, cycling to the end of the run) runs them over
 * and over, so its tenth acquisition may be the first cycle of a plan of three.
 */
function planCycle(plan: ClientPlan, position: number): Cycle | undefined {
  const n = plan.cycles.length;
  if (position < n) return plan.cycles[position];
  return plan.repeat === true && n > 0 ? plan.cycles[position % n] : undefined;
}

function keepOf(involved: readonly CycleSpan[], s: Schedule): Keep | null {
  const keep: Keep = new Map();
  for (const span of involved) {
    const plan = s.clients.find((c) => c.id === span.client);
    if (plan === undefined || planCycle(plan, span.cycle) === undefined) return null;
    keep.set(
      span.client,
      [...(keep.get(span.client) ?? []), span.cycle].sort((a, b) => a - b),
    );
  }
  return keep;
}

/** When each kept client starts its first kept cycle (ms): one way of timing the clash. */
type Starts = Map<number, number>;

/**
 * Three timings: as in the failing run; each later-granted client no earlier than the
 * grant before it; and that, with the oldest holder sending just in time to be granted
 * when it was.
 */
function startPlans(keep: Keep, spans: HistorySpans): Starts[] {
  const firsts: CycleSpan[] = [];
  for (const [client, cycles] of keep) {
    const span = spans.byClient.get(client)?.[cycles[0] ?? -1];
    if (span !== undefined) firsts.push(span);
  }
  const grantedAt = (s: CycleSpan) => s.acquireDoneMs ?? s.acquireSentMs;
  firsts.sort((a, b) => grantedAt(a) - grantedAt(b));
  const asRun: Starts = new Map(firsts.map((s) => [s.client, s.acquireSentMs]));
  const ordered: Starts = new Map(
    firsts.map((s, i) => {
      const before = firsts[i - 1];
      return [s.client, Math.max(s.acquireSentMs, before === undefined ? 0 : grantedAt(before))];
    }),
  );
  const plans = [asRun, ordered];
  const oldest = firsts[0];
  if (oldest !== undefined && spans.fastestAcquireMs !== undefined) {
    const justInTime = new Map(ordered);
    justInTime.set(oldest.client, Math.max(0, grantedAt(oldest) - spans.fastestAcquireMs));
    plans.push(justInTime);
  }
  return plans.map((p) => new Map([...p].map(([c, ms]) => [c, Math.round(ms)])));
}

/**
 * The kept clients with only their kept cycles (positions in the run, see planCycle), re-timed
 * to `starts`. Each runs them once: a focused client no longer repeats.
 */
function focusedClients(s: Schedule, keep: Keep, spans: HistorySpans, starts: Starts): ClientPlan[] {
  const out: ClientPlan[] = [];
  for (const plan of s.clients) {
    const kept = keep.get(plan.id);
    if (kept === undefined) continue;
    const history = spans.byClient.get(plan.id) ?? [];
    const cycles = kept.map((k, i) => {
      const cycle = planCycle(plan, k)!;
      if (i === 0) return { ...cycle, thinkMs: starts.get(plan.id) ?? cycle.thinkMs };
      const previous = kept[i - 1]!;
      if (previous === k - 1) return cycle;
      // Cycles in between are gone: wait as long as they took.
      const sent = history[k]?.acquireSentMs;
      const ended = history[previous]?.endMs;
      if (sent === undefined || ended === undefined) return cycle;
      return { ...cycle, thinkMs: Math.max(cycle.thinkMs, Math.round(sent - ended)) };
    });
    out.push({ id: plan.id, cycles });
  }
  return out;
}

/** A client fault in the focused schedule: gone unless it hit a kept cycle; shifted or renumbered. */
function focusedClientFault(
  f: Fault,
  client: number,
  ev: FailureEvidence,
  keep: Keep,
  spans: HistorySpans,
  shiftMs: number,
): Fault | null {
  const kept = keep.get(client);
  if (kept === undefined) return null;
  const fired = firedAtMs(f, ev.ops);
  const history = spans.byClient.get(client) ?? [];
  const hit = fired === undefined ? undefined : cycleHit(history, f, fired);
  if (hit === undefined) return null;
  // A clock fault in a dropped cycle still set the clock a later kept cycle ran on.
  const setsKeptClock = changesClockForGood(f) && hit.cycle < (kept.at(-1) ?? -1);
  if (!kept.includes(hit.cycle) && !setsKeptClock) return null;
  if (isTimedFault(f)) return { ...f, at: Math.max(0, Math.round(f.at + shiftMs)) };
  let passedInDropped = 0;
  for (const span of history) {
    if (span.cycle < hit.cycle && !kept.includes(span.cycle))
      passedInDropped +=
        f.kind === "pause-in-call" ? callHits(span, f.call) : checkpointHits(span, f.checkpoint);
  }
  const occurrence = f.occurrence - passedInDropped;
  return occurrence < 0 ? null : { ...f, occurrence };
}

/** The kept clients and the faults that follow them, timed to `starts`. */
function focusedOn(
  s: Schedule,
  ev: FailureEvidence,
  keep: Keep,
  spans: HistorySpans,
  starts: Starts,
): Pick<Schedule, "clients" | "faults"> {
  return {
    clients: focusedClients(s, keep, spans, starts),
    faults: focusedFaults(s, ev, keep, spans, starts),
  };
}

function focusedFaults(
  s: Schedule,
  ev: FailureEvidence,
  keep: Keep,
  spans: HistorySpans,
  starts: Starts,
): Fault[] {
  const dropped = s.clients.filter((c) => !keep.has(c.id)).map((c) => c.id);
  const out: Fault[] = [];
  for (const f of s.faults) {
    const client = faultTargetClient(f);
    if (client !== undefined) {
      const first = spans.byClient.get(client)?.[keep.get(client)?.[0] ?? -1];
      const shift =
        first === undefined ? 0 : (starts.get(client) ?? first.acquireSentMs) - first.acquireSentMs;
      const g = focusedClientFault(f, client, ev, keep, spans, shift);
      if (g !== null) out.push(g);
      continue;
    }
    let g: Fault | null = f;
    for (const id of dropped) g = g === null ? null : faultWithoutClient(g, id, false);
    if (g !== null) out.push(g);
  }
  return out;
}

function isPause(f: Fault): f is Extract<Fault, { kind: "pause" | "pause-at" | "pause-in-call" }> {
  return f.kind === "pause" || f.kind === "pause-at" || f.kind === "pause-in-call";
}

/**
 * Pause lengths to try for the one pause of the violating holder: the longest, all added up,
 * and twice the longest. Re-timed clients rarely retry at the very moment they did in the
 * failing run, and a longer pause leaves the newer holder time to get the lock and write.
 */
function pauseLengths(s: Schedule): number[] {
  const ds = s.faults.filter(isPause).map((f) => f.durationMs);
  if (ds.length === 0) return [];
  const longest = Math.max(...ds);
  return [...new Set([longest, ds.reduce((a, b) => a + b, 0), 2 * longest])];
}

function withPausesDoubled(faults: readonly Fault[]): Fault[] | null {
  if (!faults.some(isPause)) return null;
  return faults.map((f) => (isPause(f) ? { ...f, durationMs: 2 * f.durationMs } : f));
}

/**
 * Where to pause the violating holder: at a checkpoint the schedule's own pauses use (the
 * holder's first, then the longest pauses'), so that shrinking does not swap the fault for
 * one the fuzzer was not allowed to use (a pause while acquire replies are in flight is not
 * a pause after acquiring); right after acquiring when its pauses are all at a time.
 */
function holderCheckpoints(s: Schedule, holder: CycleSpan): Checkpoint[] {
  const at = s.faults
    .filter((f): f is Extract<Fault, { kind: "pause-at" }> => f.kind === "pause-at")
    .sort(
      (a, b) =>
        Number(b.client === holder.client) - Number(a.client === holder.client) ||
        b.durationMs - a.durationMs,
    )
    .map((f) => f.checkpoint);
  return at.length === 0 ? ["acquired"] : [...new Set(at)];
}

/** One `pause-at` at `checkpoint` in the violating holder's kept cycle (its first pass there). */
function pauseOfHolder(
  keep: Keep,
  spans: HistorySpans,
  holder: CycleSpan,
  checkpoint: Checkpoint,
  durationMs: number,
): Fault {
  const kept = keep.get(holder.client) ?? [];
  const history = spans.byClient.get(holder.client) ?? [];
  let occurrence = 0;
  for (const span of history) {
    if (span.cycle < holder.cycle && kept.includes(span.cycle))
      occurrence += checkpointHits(span, checkpoint);
  }
  return { kind: "pause-at", client: holder.client, checkpoint, occurrence, durationMs };
}

/**
 * The pauses of the holder to try: at its checkpoints (holderCheckpoints); when the schedule's
 * pauses are all inside calls, inside the holder's acquire instead, as far in as the earliest
 * of them (so that shrinking keeps to the kind of pause the fuzzer was given).
 */
function holderPauses(s: Schedule, keep: Keep, spans: HistorySpans, holder: CycleSpan): Fault[] {
  const pauses = s.faults.filter(isPause);
  const lengths = pauseLengths(s);
  if (pauses.length > 0 && pauses.every((f) => f.kind === "pause-in-call")) {
    const afterMs = Math.min(...pauses.map((f) => (f.kind === "pause-in-call" ? f.afterMs : 0)));
    const kept = keep.get(holder.client) ?? [];
    const occurrence = kept.filter((c) => c < holder.cycle).length;
    return lengths.map((durationMs) => ({
      kind: "pause-in-call",
      client: holder.client,
      call: "acquire",
      occurrence,
      afterMs,
      durationMs,
    }));
  }
  return holderCheckpoints(s, holder).flatMap((checkpoint) =>
    lengths.map((durationMs) => pauseOfHolder(keep, spans, holder, checkpoint, durationMs)),
  );
}

/** The clients whose grants the run's first anomalies name (those focusCandidates keeps). */
export function involvedClients(ev: FailureEvidence): Set<number> {
  const spans = cycleSpans(ev.ops);
  const clients = new Set<number>();
  for (const anomaly of ev.anomalies.slice(0, ANOMALIES_FOCUSED))
    for (const span of involvedSpans(ev.ops, anomaly, spans)) clients.add(span.client);
  return clients;
}

/** Each of the run's first anomalies that names grants of `s`: their cycles, and those to keep. */
function* focusedAnomalies(
  s: Schedule,
  ev: FailureEvidence,
): Generator<{ involved: CycleSpan[]; keep: Keep; spans: HistorySpans }> {
  const spans = cycleSpans(ev.ops);
  for (const anomaly of ev.anomalies.slice(0, ANOMALIES_FOCUSED)) {
    const involved = involvedSpans(ev.ops, anomaly, spans);
    const keep = keepOf(involved, s);
    if (involved.length > 0 && keep !== null) yield { involved, keep, spans };
  }
}

/**
 * The kept cycles, each client also keeping the cycle before its first kept one where a pause
 * inside a call hit that first kept cycle and the client had run one before it in the failing
 * run; null when no client needs it. A library often warms up on its first call (opens a
 * second connection, loads a script, pings a server whose health it tracks): a pause 0 ms into
 * that call stops the warm-up, not the lock's own command, and the clash does not come back.
 */
function keepWithWarmUps(s: Schedule, ev: FailureEvidence, keep: Keep, spans: HistorySpans): Keep | null {
  let warm: Keep | null = null;
  for (const [client, cycles] of keep) {
    const first = cycles[0];
    if (first === undefined || first === 0) continue;
    const history = spans.byClient.get(client) ?? [];
    const pausedInFirst = s.faults.some((f) => {
      if (f.kind !== "pause-in-call" || f.client !== client) return false;
      const fired = firedAtMs(f, ev.ops);
      return fired !== undefined && cycleHit(history, f, fired)?.cycle === first;
    });
    if (!pausedInFirst || history[first - 1] === undefined) continue;
    warm ??= new Map(keep);
    warm.set(client, [first - 1, ...cycles]);
  }
  return warm;
}

/**
 * For each anomaly whose paused clients' pause hit a call after their first (keepWithWarmUps):
 * its first focused candidate (focusCandidates's, timed as in the failing run), then the same
 * with those clients keeping the cycle before the one their pause hit. For real servers,
 * where libraries warm up; ahead of the other candidates, so that the second is not left to
 * the end of a round.
 */
export function* warmFocusCandidates(s: Schedule, ev: FailureEvidence): Generator<Schedule> {
  for (const { keep, spans } of focusedAnomalies(s, ev)) {
    const warm = keepWithWarmUps(s, ev, keep, spans);
    if (warm === null) continue;
    // Timed as in the failing run only: each candidate is a real run of seconds. The focused
    // candidate without the warm-up first: where a lock needs none, it is the smaller.
    for (const k of [keep, warm]) {
      const [asRun] = startPlans(k, spans);
      if (asRun !== undefined) yield { ...s, ...focusedOn(s, ev, k, spans, asRun) };
    }
  }
}

/** Candidates that keep only what one of the run's anomalies involves (see the top of this file). */
export function* focusCandidates(s: Schedule, ev: FailureEvidence): Generator<Schedule> {
  for (const { involved, keep, spans } of focusedAnomalies(s, ev)) {
    const plans = startPlans(keep, spans);
    const focused = plans.map((starts) => focusedOn(s, ev, keep, spans, starts));
    for (const f of focused) yield { ...s, ...f };
    for (const f of focused) {
      const longer = withPausesDoubled(f.faults);
      if (longer !== null) yield { ...s, clients: f.clients, faults: longer };
    }
    // The violating holder first; then the other grants' holders, for pauses that make the
    // paused client the newer grant (paused while its acquire was in flight, it learns of
    // the grant last).
    const held = involved.flatMap((who) =>
      holderPauses(s, keep, spans, who).flatMap((pause) =>
        plans.map((starts) => ({ clients: focusedClients(s, keep, spans, starts), faults: [pause] })),
      ),
    );
    for (const f of held) yield { ...s, ...f };
    // Renumbered, each client draws from another random stream (latency, loss): a client
    // whose first message happened to be lost now sends it in a world where it is not.
    for (const f of [...focused, ...held]) yield withCompactIds({ ...s, ...f });
  }
}
