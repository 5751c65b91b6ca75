/**
 * What simulated client code waits for (`yield* op`, env/steps.ts), and the driver that runs
 * a client's step code inside the event loop.
 *
 * A SimOp is settled by an event (an answer, a timeout, a timer). If step code waits on it,
 * its driver goes on the core's ready list and runs at the next drain (scheduler.ts), as a
 * promise's continuation would have run in the next microtask checkpoint — but without
 * leaving the loop, and without a promise. A user's async algorithm gets a promise of the
 * op instead (`promiseOf`); settling that one makes the loop drain the microtask queue.
 */
import type { SimCore } from "./scheduler.js";

/**
 * One wait of client code. It is its own iterator and its own iterator result, so that
 * `yield* op` allocates nothing: pending, `next()` returns it with `done: false` and
 * `value: op` (the driver sees the op); settled, it returns it with `done: true` and
 * `value` the answer.
 */
export class SimOp<T> {
  done = false;
  value: unknown = this;
  /** The driver waiting for it, if step code yielded it. */
  waiter: ClientDriver | null = null;
  /** For `promiseOf`: settles the promise instead. */
  toPromise: ((op: SimOp<T>) => void) | null = null;
  /** A failure to throw into the waiting code (a bug in the simulator). */
  failure: unknown = undefined;
  failed = false;

  /** Null only for ops settled from the start, which nothing settles again. */
  constructor(readonly core: SimCore | null) {}

  [Symbol.iterator](): this {
    return this;
  }

  next(): IteratorResult<unknown, T> {
    if (this.failed) throw this.failure;
    return this as unknown as IteratorResult<unknown, T>;
  }
}

/** An op that is settled from the start (a checkpoint that does not pause). */
export function settledOp<T>(value: T): SimOp<T> {
  const op = new SimOp<T>(null);
  op.done = true;
  op.value = value;
  return op;
}

/** Settles `op` with `value`: its waiting code runs at the next drain. */
export function completeOp<T>(op: SimOp<T>, value: T): void {
  if (op.done) return;
  op.done = true;
  op.value = value;
  handOver(op);
}

/** Settles `op` with a failure: waiting code gets it thrown at the next drain. */
export function failOp<T>(op: SimOp<T>, failure: unknown): void {
  if (op.done) return;
  op.failed = true;
  op.failure = failure;
  op.done = true;
  handOver(op);
}

/** A settled op to the code that waits on it: step code at the next drain, or its promise. */
function handOver<T>(op: SimOp<T>): void {
  const waiter = op.waiter;
  if (waiter !== null) {
    op.waiter = null;
    const core = op.core!;
    core.ready[core.readyCount++] = waiter;
  } else if (op.toPromise !== null) {
    op.core!.microtasks = true;
    op.toPromise(op);
  }
}

/** The op as a promise, for async client code (a user's LockAlgorithm). */
export function promiseOf<T>(op: SimOp<T>): Promise<T> {
  if (op.failed) return Promise.reject(op.failure);
  if (op.done) return Promise.resolve(op.value as T);
  return new Promise<T>((resolve, reject) => {
    op.toPromise = (settled) => (settled.failed ? reject(settled.failure) : resolve(settled.value as T));
  });
}

/** Runs one client's step code: started at once, resumed from the ready list. */
export interface ClientDriver {
  readonly core: SimCore;
  readonly steps: Iterator<unknown, void, unknown>;
  /** The value to resume with (what a promise the code waited for resolved to). */
  input: unknown;
  /** A rejection to throw in on resume. */
  thrown: unknown;
  throwing: boolean;
  readonly onDone: () => void;
  readonly onFail: (e: unknown) => void;
}

export function startClient(
  core: SimCore,
  steps: Iterator<unknown, void, unknown>,
  onDone: () => void,
  onFail: (e: unknown) => void,
): ClientDriver {
  const d: ClientDriver = {
    core,
    steps,
    input: undefined,
    thrown: undefined,
    throwing: false,
    onDone,
    onFail,
  };
  resumeClient(d);
  return d;
}

/** Runs the client's code until it waits for something unsettled, finishes or throws. */
export function resumeClient(d: ClientDriver): void {
  let r: IteratorResult<unknown, void>;
  try {
    if (d.throwing) {
      const e = d.thrown;
      d.throwing = false;
      d.thrown = undefined;
      r = d.steps.throw!(e);
    } else {
      const input = d.input;
      d.input = undefined;
      r = d.steps.next(input);
    }
  } catch (e) {
    d.onFail(e);
    return;
  }
  if (r.done === true) {
    d.onDone();
    return;
  }
  const waited = r.value;
  if (waited instanceof SimOp) {
    // Pending: `yield*` on a settled op never yields it.
    waited.waiter = d;
    return;
  }
  // A promise (or any value) from async code: resume once the microtask queue has settled
  // it, exactly as `await` would.
  d.core.microtasks = true;
  Promise.resolve(waited).then(
    (value) => {
      d.input = value;
      resumeClient(d);
    },
    (e: unknown) => {
      d.thrown = e;
      d.throwing = true;
      resumeClient(d);
    },
  );
}
