/**
 * The discrete-event scheduler: virtual time, the agenda, and the loop that runs it.
 *
 * Client code must run to its next wait before the loop advances virtual time, or the
 * client's next request would be stamped with a later time than the reply that caused it. So
 * after an event that settled something client code waits for (`core.settled`), the loop
 * drains: it runs that code before the next event.
 *
 * - Step code (the built-in locks and the workload, env/steps.ts) waits on SimOps: settling
 *   one puts its client's driver on `core.ready`, and the drain resumes the drivers there in
 *   order, inside the loop (sim-op.ts).
 * - Async code (a user's LockAlgorithm) waits on promises: settling one only queues its
 *   continuation as a microtask (`core.microtasks`). The loop then hands control back and
 *   resumes in a process.nextTick queued from a microtask: Node runs that tick only once the
 *   microtask queue is completely empty, so the loop resumes exactly when every client
 *   continuation has run, and the order is deterministic because the microtask queue is FIFO.
 *   (Measured per hand-back: setImmediate ~3.2 µs; queueMicrotask + nextTick ~0.5–0.9 µs;
 *   `resolvedPromise.then` + nextTick ~0.3 µs — the last is used.)
 *
 * Events that settle nothing client code waits for (server work) run back to back, and so do
 * replies to calls whose client still waits for others it sent with them (batch.ts).
 *
 * Consequence: a simulation does not yield to timers or I/O until it finishes. Callers that
 * need to stay responsive (progress bars) await something between runs.
 */
import {
  createEventQueue,
  dropTop,
  type EventQueue,
  type OwnEvent,
  peekEvent,
  pushAgain,
  pushEvent,
  pushOwnEvent,
  type SimEvent,
  topTime,
} from "./event-queue.js";
import { type ClientDriver, resumeClient } from "./sim-op.js";

export interface SimCore {
  readonly queue: EventQueue;
  /** Virtual (true) time in ms. */
  now: number;
  /** Set when an event settled something client code waits for: the loop drains before going on. */
  settled: boolean;
  /** Drivers of step code whose wait is settled, to resume at the next drain (sim-op.ts): the
   * first `readyCount` of `ready`. Counted rather than emptied with `length = 0`, which drops
   * the array's storage (allocated again at the next push, once per drain). Each slot is
   * cleared as its driver resumes: left in place, stale entries made a fuzz run promote 2.5×
   * the bytes to the old generation (30 KB a run instead of 12, sampled). */
  readonly ready: (ClientDriver | null)[];
  readyCount: number;
  /** A promise client code waits for was settled: the next drain runs the microtask queue. */
  microtasks: boolean;
  /** Events run so far. */
  events: number;
  /** Microtask drains so far; calls a client makes within one drain form a batch (batch.ts). */
  drains: number;
  /** Clients that owe a drain: promises of theirs were settled without one (batch.ts). */
  readonly owing: Owing[];
  /** Settles held back until the next drain has run (batch.ts). */
  readonly afterDrain: Deferred[];
  /** A client acted while it owed a drain: the run is not exact and must be run strictly. */
  late: boolean;
  /** Drain after every settle, batch or not. */
  readonly strict: boolean;
}

/** A client that may owe a drain. */
export interface Owing {
  owing: boolean;
}

/** Something to do once the next drain has run. */
export interface Deferred {
  runAfterDrain(): void;
}

export function createCore(strict = true): SimCore {
  return {
    queue: createEventQueue(),
    now: 0,
    settled: false,
    ready: [],
    readyCount: 0,
    microtasks: false,
    events: 0,
    drains: 0,
    owing: [],
    afterDrain: [],
    late: false,
    strict,
  };
}

const callThunk = (f: () => void): void => f();

/** Runs `run` at virtual time `time` (never before now). */
export function at(core: SimCore, time: number, run: () => void): SimEvent {
  return pushEvent(core.queue, Math.max(core.now, time), callThunk, run, undefined);
}

/** Runs `run(a, b)` at virtual time `time`: the allocation-free form for hot paths. */
export function atWith<A, B>(core: SimCore, time: number, run: (a: A, b: B) => void, a: A, b: B): SimEvent {
  return pushEvent(core.queue, Math.max(core.now, time), run, a, b);
}

/** `atWith` for an object that is its own event (event-queue.ts `pushOwnEvent`): nothing allocated. */
export function atOwn<A, B>(
  core: SimCore,
  time: number,
  ev: OwnEvent,
  run: (a: A, b: B) => void,
  a: A,
  b: B,
): void {
  pushOwnEvent(core.queue, Math.max(core.now, time), ev, run, a, b);
}

/** Puts an event that ran or was cancelled back in the agenda at `time`, numbered as a new one. */
export function atAgain(core: SimCore, time: number, ev: SimEvent): void {
  pushAgain(core.queue, Math.max(core.now, time), ev);
}

export function after(core: SimCore, delayMs: number, run: () => void): SimEvent {
  return pushEvent(core.queue, core.now + delayMs, callThunk, run, undefined);
}

/** A settled promise: `.then` on it queues a plain microtask (cheaper than queueMicrotask). */
const resolved = Promise.resolve();

export interface LoopControl {
  /** True when the run may stop (all clients done). Checked after each drain of client code. */
  done(): boolean;
  /** A failure raised by client code (a bug in a lock algorithm); stops the run. */
  failure(): unknown;
  /** No event later than this runs. */
  endTime: number;
  /** Stop with an error after this many events (a client that loops without waiting). */
  maxEvents: number;
}

/**
 * Runs events until `done()`, the agenda is empty, or the next event is after `endTime` — or
 * until a client acts while it owes a drain (`core.late`: the caller reruns strictly).
 */
export function runLoop(core: SimCore, ctl: LoopControl): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (): void => {
      try {
        for (;;) {
          // A drain: the client code settled since the last one runs. (Async code's
          // continuations already ran, in the microtask checkpoint before this call.)
          if (core.readyCount > 0) {
            const ready = core.ready;
            for (let i = 0; i < core.readyCount; i++) {
              const driver = ready[i]!;
              ready[i] = null;
              resumeClient(driver);
            }
            core.readyCount = 0;
          }
          if (core.microtasks) {
            core.microtasks = false;
            resolved.then(resumeAfterMicrotasks);
            return;
          }
          core.drains++;
          const { owing, afterDrain } = core;
          while (owing.length > 0) owing.pop()!.owing = false;
          if (afterDrain.length > 0) {
            // Each settles a client's wait, which may not defer again (its client owes nothing now).
            for (let i = 0; i < afterDrain.length; i++) afterDrain[i]!.runAfterDrain();
            afterDrain.length = 0;
            core.settled = false;
            continue;
          }
          // Only client code changes these, and it runs only in drains: check once per drain.
          const failure = ctl.failure();
          if (failure !== undefined) {
            reject(failure);
            return;
          }
          const done = ctl.done();
          if (core.late) {
            resolve();
            return;
          }
          if (!runEvents(core, ctl, done)) {
            // Reactions still owed run first: a client acting in them makes the run late.
            if (core.owing.length > 0) continue;
            resolve();
            return;
          }
        }
      } catch (e) {
        reject(e);
      }
    };
    const resumeAfterMicrotasks = (): void => process.nextTick(step);
    // Clients have started: async ones may have continuations queued, step code has none.
    if (core.microtasks) {
      core.microtasks = false;
      resolved.then(resumeAfterMicrotasks);
    } else step();
  });
}

/**
 * Runs events until one settles client code's wait (true: drain now), or until the run may
 * stop (false).
 */
function runEvents(core: SimCore, ctl: LoopControl, done: boolean): boolean {
  for (;;) {
    const next = peekEvent(core.queue);
    if (done || next === undefined || topTime(core.queue) > ctl.endTime) return false;
    if (core.events >= ctl.maxEvents) {
      throw new Error(
        `simulate: gave up after ${core.events} events at virtual time ${core.now} ms ` +
          "(does a client loop without waiting?)",
      );
    }
    core.now = topTime(core.queue);
    dropTop(core.queue);
    core.events++;
    next.run(next.a as never, next.b as never);
    if (core.settled) {
      core.settled = false;
      return true;
    }
  }
}
