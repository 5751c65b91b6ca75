/**
 * The simulator's entry point: run one schedule against one lock algorithm in a
 * deterministic discrete-event world and return the recorded history. The clients run the
 * workload as step code (env/steps.ts), resumed by the loop itself (sim-op.ts).
 *
 * Same schedule (and options) ⇒ byte-identical history, on any machine: all randomness comes
 * from the schedule's seed, events are ordered by (virtual time, creation order), and client
 * code is resumed in a fixed order (see scheduler.ts).
 *
 * The run ends when every client has finished its plan or crashed (clients are never
 * restarted, so nothing more can happen that the history records about them), or at
 * 2 × horizonMs of virtual time; calls still open then (a crashed client's, or any at the time
 * limit) complete as `info`. Faults scheduled after that point are not run or recorded.
 */

import type { LockEnv } from "../env/env.js";
import type { Op } from "../history/op.js";
import type { LockAlgorithm } from "../locks/lock.js";
import { stepLockOf } from "../locks/step-lock.js";
import type { Schedule } from "../schedule/schedule.js";
import { clientSteps } from "../workload/client.js";
import { noteAction } from "./batch.js";
import { asyncClientEnv, createClientEnv } from "./client-env.js";
import { settleLateWrites } from "./late-writes.js";
import { scheduleFaults } from "./nemesis.js";
import { seedLinks } from "./network.js";
import { mapPacked } from "./packed.js";
import { withPausesInCall } from "./pause-in-call.js";
import { clientRecorder, closeOpenCalls } from "./recorder.js";
import { runLoop } from "./scheduler.js";
import { startClient } from "./sim-op.js";
import { createWorld, emptyWorld, type SimWorld, type WorldOptions } from "./world.js";

export interface SimRun {
  ops: Op[];
  stats: {
    /** Simulated events run (message deliveries, timers, faults). */
    events: number;
    /** Virtual time simulated, in ms. */
    virtualMs: number;
    /** Network messages sent, and how many of them were lost (loss, partitions). */
    messages: number;
    messagesLost: number;
  };
}

export type SimOptions = WorldOptions;

/** A world set up to run: tests and tools may inspect `world` or add events before `run()`. */
export interface PreparedSimulation {
  readonly world: SimWorld;
  run(): Promise<SimRun>;
}

/**
 * Runs `schedule` against `algorithm` in the simulator and returns the history: with reply
 * batching (batch.ts) unless `opts.strict`, and again strictly if batching could not be exact
 * (or the batched run failed), so the history is always the strict one.
 */
export function simulate(
  schedule: Schedule,
  algorithm: LockAlgorithm,
  opts: SimOptions = {},
): Promise<SimRun> {
  // Built here, not in the async part: a schedule the world cannot host throws at once.
  const first = prepareSimulation(schedule, algorithm, { ...opts, strict: opts.strict === true });
  if (opts.strict === true) return runAndEmpty(first);
  return runBatched(first, () => prepareSimulation(schedule, algorithm, { ...opts, strict: true }));
}

async function runBatched(batched: PreparedSimulation, strict: () => PreparedSimulation): Promise<SimRun> {
  try {
    const r = await runAndEmpty(batched);
    if (!batched.world.core.late) return r;
  } catch {
    // Rerun strictly: a failure must be reported as the strict run meets it.
  }
  return runAndEmpty(strict());
}

/** Runs it, then empties its world (world.ts `emptyWorld`): the history returned is a copy. */
async function runAndEmpty(p: PreparedSimulation): Promise<SimRun> {
  const r = await p.run();
  const copied: SimRun = { ops: r.ops.slice(), stats: r.stats };
  emptyWorld(p.world);
  return copied;
}

/**
 * Builds the world and schedules the faults; the clients start when `run()` is called.
 * Throws a RangeError for a schedule the world cannot host (fenced-txn on a non-etcd target,
 * duplicate client ids).
 */
export function prepareSimulation(
  schedule: Schedule,
  algorithm: LockAlgorithm,
  opts: SimOptions = {},
): PreparedSimulation {
  const w = createWorld(schedule, algorithm.servers, opts);
  scheduleFaults(w);
  return { world: w, run: () => runWorld(w, algorithm, opts.maxEvents ?? DEFAULT_MAX_EVENTS) };
}

const DEFAULT_MAX_EVENTS = 20_000_000;

async function runWorld(w: SimWorld, algorithm: LockAlgorithm, maxEvents: number): Promise<SimRun> {
  const { schedule } = w;
  const { options } = schedule;
  const workload = { lockName: options.lockName, ttlMs: options.ttlMs, horizonMs: options.horizonMs };
  let finished = 0;
  let failure: unknown;
  const nodes = mapPacked(schedule.clients, (plan) => w.clients.get(plan.id)!);
  // 1 once client i finished its plan. A typed array: `nodes.map(() => false)` is packed when
  // interpreted and holey once optimized, and the mix made the run loop's optimized code
  // deoptimize again and again (V8 "wrong map"), about once per 40 schedules.
  const finishedPlan = new Uint8Array(nodes.length);
  /** Every client finished its plan or crashed. */
  const settled = (): boolean => {
    if (finished === nodes.length) return true;
    for (let i = 0; i < nodes.length; i++) if (finishedPlan[i] === 0 && !nodes[i]!.crashed) return false;
    return true;
  };
  schedule.clients.forEach((plan, i) => {
    const node = nodes[i]!;
    const env = createClientEnv(w, plan.id, node);
    // One LockEnv per client, as in every world: an algorithm may keep state per env.
    let asyncEnv: LockEnv | undefined;
    const lock = stepLockOf(algorithm, () => (asyncEnv ??= asyncClientEnv(env)));
    const rec = withPausesInCall(w, plan.id, node, clientRecorder(w.history, plan.id, node));
    startClient(
      w.core,
      clientSteps(env, lock, plan, workload, rec),
      () => {
        noteAction(node);
        finished++;
        finishedPlan[i] = 1;
      },
      (e: unknown) => {
        noteAction(node);
        failure ??= new Error(`simulate: client ${plan.id} (${algorithm.name}) threw`, { cause: e });
      },
    );
  });
  // Every client's channels exist now, and nearly all will carry messages.
  seedLinks(w.net);
  const endTime = 2 * options.horizonMs;
  await runLoop(w.core, {
    done: settled,
    failure: () => failure,
    endTime,
    maxEvents,
  });
  if (!settled()) w.core.now = Math.max(w.core.now, endTime);
  closeOpenCalls(w.history, (process) => (w.clients.get(process)?.crashed ? "crashed" : "run-ended"));
  await settleLateWrites(w, maxEvents);
  return {
    ops: w.history.ops,
    stats: { events: w.core.events, virtualMs: w.core.now, messages: w.net.sent, messagesLost: w.net.lost },
  };
}
