/**
 * The nemesis: turns a schedule's faults into events of the world and records the start and
 * the end of each one as a `nemesis` op (node and parameters in `node` and `value`).
 *
 * - Node refs are resolved when the fault starts (`server:leader` names whoever leads then)
 *   and the fault's end applies to that same node. When there is no leader (Redis-like
 *   targets, or an election under way) `server:leader` is server:0. A fault naming a node the world does not have (a
 *   client removed while shrinking) does nothing and records nothing.
 * - Clients are never restarted after a crash (a crashed client never releases).
 * - Partitions and delays are reference counted per directed link, so overlapping faults
 *   compose and each heal undoes only its own cut.
 */

import { afterMsField, checkpointFaultPoint } from "../schedule/faults/after-checkpoint.js";
import { delayedLink } from "../schedule/faults/delay-at.js";
import { partitionAtSides } from "../schedule/faults/partition-at.js";
import {
  type Checkpoint,
  type CheckpointFault,
  isTimedFault,
  type PauseClocks,
  startsAtHit,
  type TimedFault,
} from "../schedule/schedule.js";
import { jumpClock, monoAt } from "./clock.js";
import { cutLink, delayLink } from "./network.js";
import {
  crashNode,
  driftNode,
  pauseNode,
  restartNode,
  resumeNode,
  rewindClock,
  type SimNode,
  setTimer,
} from "./node.js";
import { recordNemesis } from "./recorder.js";
import { after, at } from "./scheduler.js";
import { completeOp, SimOp } from "./sim-op.js";
import { resolveNodeRef, type SimWorld } from "./world.js";

/** Starts the faults that start at a time; the others start at a client's own progress. */
export function scheduleFaults(w: SimWorld): void {
  for (const fault of w.schedule.faults) {
    if (isTimedFault(fault)) at(w.core, fault.at, () => startFault(w, fault));
  }
}

function startFault(w: SimWorld, fault: TimedFault): void {
  switch (fault.kind) {
    case "pause": {
      const node = resolveNodeRef(w, fault.node);
      if (node === undefined) return;
      pauseFor(w, node, fault.durationMs, { ref: fault.node, durationMs: fault.durationMs });
      return;
    }
    case "crash": {
      const node = resolveNodeRef(w, fault.node);
      if (node === undefined) return;
      recordNemesis(w.history, "crash", node.name, { ref: fault.node, restartAfterMs: fault.restartAfterMs });
      crashNode(node);
      // A crashed client is settled for good, which may end the run: let the loop look
      // (it checks whether the run is done once per drain of client code).
      if (node.name.startsWith("client:")) w.core.settled = true;
      if (fault.restartAfterMs !== null && !node.name.startsWith("client:")) {
        after(w.core, fault.restartAfterMs, () => {
          recordNemesis(w.history, "restart", node.name, { ref: fault.node });
          restartNode(node);
        });
      }
      return;
    }
    case "partition":
      partitionFor(w, fault.a, fault.b, fault.oneWay, fault.durationMs, {});
      return;
    case "clock-jump": {
      const node = resolveNodeRef(w, fault.node);
      if (node === undefined) return;
      recordNemesis(w.history, "clock-jump", node.name, { ref: fault.node, deltaMs: fault.deltaMs });
      jumpClock(node.clock, fault.deltaMs);
      return;
    }
    case "clock-drift": {
      const node = resolveNodeRef(w, fault.node);
      if (node === undefined) return;
      recordNemesis(w.history, "clock-drift", node.name, { ref: fault.node, rate: fault.rate });
      driftNode(node, fault.rate);
      return;
    }
    case "delay":
      delayFor(w, fault.from, fault.to, fault.extraMs, fault.durationMs, {});
      return;
  }
}

/**
 * Pauses `node` for `durationMs`; with `clocks` "stopped" its clocks stand still meanwhile
 * (`rewindClock`). The pause and resume ops carry `clocks` then.
 */
export function pauseFor(
  w: SimWorld,
  node: SimNode,
  durationMs: number,
  value: Record<string, unknown>,
  clocks?: PauseClocks,
): void {
  const recorded = clocks === undefined ? value : { ...value, clocks };
  recordNemesis(w.history, "pause", node.name, recorded);
  pauseNode(node);
  const monoAtPause = monoAt(node.clock, w.core.now);
  after(w.core, durationMs, () => {
    recordNemesis(w.history, "resume", node.name, recorded);
    if (clocks === "stopped") rewindClock(node, monoAtPause);
    resumeNode(node);
  });
}

/**
 * Cuts the links between the nodes of `a` and of `b` (only a→b when `oneWay`) for
 * `durationMs`, recording the partition and its heal (their value carries `mark` too).
 */
function partitionFor(
  w: SimWorld,
  aRefs: readonly string[],
  bRefs: readonly string[],
  oneWay: boolean,
  durationMs: number,
  mark: Record<string, unknown>,
): void {
  const a = resolveGroup(w, aRefs);
  const b = resolveGroup(w, bRefs);
  const links = partitionLinks(a, b, oneWay);
  if (links.length === 0) return;
  const value = { a, b, oneWay, durationMs, ...mark };
  recordNemesis(w.history, "partition", undefined, value);
  for (const [from, to] of links) cutLink(w.net, from, to, 1);
  after(w.core, durationMs, () => {
    recordNemesis(w.history, "heal", undefined, value);
    for (const [from, to] of links) cutLink(w.net, from, to, -1);
  });
}

/**
 * Delays messages sent from → to by `extraMs` for `durationMs`, recording the delay and its
 * end (their value carries `mark` too).
 */
function delayFor(
  w: SimWorld,
  fromRef: string,
  toRef: string,
  extraMs: number,
  durationMs: number,
  mark: Record<string, unknown>,
): void {
  const from = resolveNodeRef(w, fromRef);
  const to = resolveNodeRef(w, toRef);
  if (from === undefined || to === undefined || from === to) return;
  const value = { from: from.name, to: to.name, extraMs, durationMs, ...mark };
  recordNemesis(w.history, "delay", from.name, value);
  delayLink(w.net, from.name, to.name, extraMs);
  after(w.core, durationMs, () => {
    recordNemesis(w.history, "delay-end", from.name, value);
    delayLink(w.net, from.name, to.name, -extraMs);
  });
}

function resolveGroup(w: SimWorld, refs: readonly string[]): string[] {
  const names: string[] = [];
  for (const ref of refs) {
    const node = resolveNodeRef(w, ref);
    if (node !== undefined && !names.includes(node.name)) names.push(node.name);
  }
  return names;
}

function partitionLinks(a: readonly string[], b: readonly string[], oneWay: boolean): [string, string][] {
  const links: [string, string][] = [];
  for (const x of a) {
    for (const y of b) {
      if (x === y) continue;
      links.push([x, y]);
      if (!oneWay) links.push([y, x]);
    }
  }
  return links;
}

/**
 * The checkpoint faults that name client `clientId`, in schedule order: what `faultsAtCheckpoint`
 * is given (looked up once per client rather than at every checkpoint it reaches).
 */
export function checkpointFaultsOf(w: SimWorld, clientId: number): CheckpointFault[] {
  return w.schedule.faults.filter((f): f is CheckpointFault => "checkpoint" in f && f.client === clientId);
}

/**
 * `env.checkpoint(point)`: of the client's checkpoint faults (`own`, see `checkpointFaultsOf`),
 * the `partition-at` faults that name this checkpoint and occurrence cut it off from their
 * nodes now, and the `delay-at` faults delay their link now (it goes on at once); then, if
 * `pause-at` faults name them, pause the client for their durations (recorded as
 * pause/resume) and return an op settled once it runs again; otherwise null (nothing to wait
 * for). Those with `afterMs` start that long after, on a timer of the client's own (the client
 * goes on meanwhile; frozen, it fires them once it runs again), as a real client times them.
 */
export function faultsAtCheckpoint(
  w: SimWorld,
  clientId: number,
  client: SimNode,
  own: readonly CheckpointFault[],
  point: Checkpoint,
  occurrence: number,
): SimOp<void> | null {
  // Nearly every hit starts nothing: find that out without allocating.
  let hit = false;
  for (let i = 0; i < own.length && !hit; i++) hit = startsAtHit(own[i]!, clientId, point, occurrence);
  if (!hit) return null;
  const atThisHit = own.filter((f) => startsAtHit(f, clientId, point, occurrence));
  for (const f of atThisHit) {
    if (f.afterMs === undefined) continue;
    setTimer(client, f.afterMs, () => {
      w.core.settled = true;
      startCheckpointFault(w, client, f);
    });
  }
  const now = atThisHit.filter((f) => f.afterMs === undefined);
  // Cuts and delays first, as a real client has its links changed before it stops itself.
  for (const f of now) if (f.kind !== "pause-at") startCheckpointFault(w, client, f);
  const pauses = now.filter((f) => f.kind === "pause-at");
  if (pauses.length === 0) return null;
  for (const f of pauses) startCheckpointFault(w, client, f);
  // A zero-length timer comes due at once and waits, like everything else, for the resume.
  const op = new SimOp<void>(w.core);
  setTimer(client, 0, () => {
    w.core.settled = true;
    completeOp(op, undefined);
  });
  return op;
}

function startCheckpointFault(w: SimWorld, client: SimNode, f: CheckpointFault): void {
  switch (f.kind) {
    case "partition-at": {
      const { a, b, oneWay } = partitionAtSides(f);
      partitionFor(w, a, b, oneWay, f.durationMs, checkpointFaultPoint(f));
      return;
    }
    case "delay-at": {
      const { from, to } = delayedLink(f);
      delayFor(w, from, to, f.extraMs, f.durationMs, checkpointFaultPoint(f));
      return;
    }
    case "pause-at": {
      const { checkpoint, occurrence, durationMs } = f;
      pauseFor(
        w,
        client,
        durationMs,
        { checkpoint, occurrence, ...afterMsField(f.afterMs), durationMs },
        f.clocks,
      );
      return;
    }
  }
}
