/**
 * `fuzz` on several cores. Worker threads (fuzz-worker.ts) and this thread run blocks of the
 * seed's run indices (run-block.ts); this coordinator hands the blocks out in index order and
 * stops once the lowest failing index is known (blocks.ts). That run is then replayed and
 * shrunk here, in this thread, by the sequential `fuzz` started at that index: the same seed
 * gives the same runs, the same first counterexample and the same shrunk schedule whatever the
 * number of workers.
 *
 * This thread searches too (`workers` counts it): it starts at once, while the threads load,
 * so a violation in the first runs costs no more than in a sequential search, and its code is
 * warm for the shrinking that follows. It yields to its event loop between runs, so that the
 * workers' messages and the time limit are handled. Who runs which block never changes the
 * result.
 *
 * Threads come from this process's pool (pool.ts). A warm one (it served an earlier search)
 * joins at once. A new one costs 1–3 s of CPU on the same cores (loading, then V8 compiling the
 * target's code again), so new threads join only once this thread's pace has settled and the
 * work left at that pace is over THREADS_WORTH_MS: measured on 2 cores, cold threads made a
 * 2-second sim:consensus search 25% slower, and they pay only in searches of several seconds.
 *
 * Only deterministic targets that another thread can load (by name or from their module)
 * are searched in parallel; any other target runs sequentially, in this thread.
 */
import type { Worker } from "node:worker_threads";
import type { Arbitrary } from "fast-check";
import { runCursor } from "../../generators/run-position.js";
import type { Schedule } from "../../schedule/schedule.js";
import type { Target } from "../../targets/target.js";
import { type FuzzOptions, type FuzzResult, fuzz, fuzzScheduleArb } from "../fuzz.js";
import { SearchFrontier } from "./blocks.js";
import { borrowThread, discard, giveBack, type ThreadEvent, warmThreads } from "./pool.js";
import type { FromWorker, SearchSetup, ToWorker } from "./protocol.js";
import { runBlock } from "./run-block.js";
import { targetSpec } from "./target-spec.js";

const DEFAULT_RUNS = 1000;

/**
 * Runs `fuzz(o)` on `workers` threads when `o.target` allows it, else sequentially in this
 * thread. `o.startAt` with `o.runs` searches only the indices [startAt, startAt + runs)
 * (a shard of a campaign).
 */
export async function fuzzOnCores(
  o: FuzzOptions,
  workers: number,
  parallel: ParallelOptions = {},
): Promise<FuzzResult> {
  const spec = workers > 1 && o.target.deterministic ? targetSpec(o.target) : null;
  if (spec === null) return fuzz(o);
  return fuzzParallel(o, workers, spec, parallel);
}

export interface ParallelOptions {
  /**
   * Whether this thread searches too, as one of the `workers` (default true). False: every
   * block runs on a worker thread (tests use it to exercise the threads alone).
   */
  searchHere?: boolean;
  /** Start the threads at once rather than when the work left looks worth it (tests). */
  threadsAtOnce?: boolean;
}

async function fuzzParallel(
  o: FuzzOptions,
  workers: number,
  spec: string,
  parallel: ParallelOptions,
): Promise<FuzzResult> {
  const searchHere = parallel.searchHere ?? true;
  const started = Date.now();
  const resource = o.resource ?? o.target.resources[0];
  const from = o.startAt ?? 0;
  const total = o.runs ?? (o.timeLimitMs !== undefined ? Number.POSITIVE_INFINITY : DEFAULT_RUNS);
  const frontier = new SearchFrontier(from, from + total, workers);
  const setup: SearchSetup = {
    target: spec,
    resource,
    seed: o.seed,
    faults: [...o.faults],
    ...(o.options === undefined ? {} : { options: o.options }),
    ...(o.workload === undefined ? {} : { workload: o.workload }),
    ...(o.faultBounds === undefined ? {} : { faultBounds: o.faultBounds }),
  };
  const report = () =>
    o.onProgress?.({
      phase: "search",
      runs: from + frontier.passedTotal(),
      shrinkRuns: 0,
      violations: frontier.lowestFailure() === null ? 0 : 1,
    });
  const deadline = o.timeLimitMs === undefined ? Number.POSITIVE_INFINITY : started + o.timeLimitMs;
  const here: LocalSearch = { target: o.target, arb: fuzzScheduleArb({ ...o, resource }), seed: o.seed };
  const outcome = await search(setup, searchHere ? here : null, frontier, {
    threads: searchHere ? workers - 1 : workers,
    threadsAtOnce: parallel.threadsAtOnce === true || !searchHere,
    deadline,
    onChange: report,
  });
  const base = { target: o.target.name, resource, seed: o.seed };
  if (outcome.fatal !== undefined) {
    return {
      ...base,
      runs: from + frontier.passedPrefix(),
      elapsedMs: Date.now() - started,
      interrupted: false,
      counterexample: null,
      error: { message: `a search worker failed: ${outcome.fatal}`, schedule: null },
    };
  }
  const failure = frontier.lowestFailure();
  if (failure === null) {
    return {
      ...base,
      runs: from + frontier.passedPrefix(),
      elapsedMs: Date.now() - started,
      interrupted: outcome.interrupted,
      counterexample: null,
      error: null,
    };
  }
  // The sequential search, started at the failing index, finds it again at once and shrinks it.
  const { timeLimitMs: _, ...rest } = o;
  const replayed = await fuzz({ ...rest, resource, startAt: failure, runs: 1 });
  return { ...replayed, elapsedMs: Date.now() - started, interrupted: outcome.interrupted };
}

interface SearchOutcome {
  interrupted: boolean;
  fatal?: string;
}

/** What this thread needs to search blocks itself. */
interface LocalSearch {
  target: Target;
  arb: Arbitrary<Schedule>;
  seed: number;
}

/**
 * Yields to the event loop between runs once `everyMs` have passed since the last yield: often
 * enough to hand a worker its next block without keeping it waiting, while a yield after every
 * run (a setImmediate, about 3 µs, against 150 µs or more a run) cost this thread 3–5% of its runs
 * (sim:lease-token, 20,000 runs, in blocks: 3,308 → 3,432–3,499 ms of CPU).
 */
function yieldingEvery(everyMs: number): () => Promise<void> {
  let last = performance.now();
  return () => {
    const now = performance.now();
    if (now - last < everyMs) return Promise.resolve();
    return new Promise((resolve) =>
      setImmediate(() => {
        last = performance.now();
        resolve();
      }),
    );
  };
}

const YIELD_EVERY_MS = 2;

/** How long a thread may take to drop its block when a search ends before it is ended instead. */
const RELEASE_MS = 5000;

/** How often the coordinator considers starting the threads. */
const THREAD_CHECK_MS = 250;
/** This thread's pace counts as settled (its code compiled) once it gains less than this between checks. */
const PACE_SETTLED = 1.25;
/** Threads start once the work left (estimated at this thread's pace) is longer than this. */
const THREADS_WORTH_MS = 2500;

/** A pool thread lent to one search. */
interface Lent {
  thread: Worker;
  /** It failed or exited (the pool has dropped it). */
  lost: boolean;
  /** Called when it has answered `release`, or was lost. */
  released: (() => void) | null;
}

/**
 * Asks a lent thread to drop its block and gives it back to the pool once it has; a thread
 * that does not answer within RELEASE_MS (a run stuck in a module target) is ended instead.
 */
function handBack(t: Lent): Promise<void> {
  if (t.lost) return Promise.resolve();
  return new Promise((resolve) => {
    const timeout = setTimeout(() => {
      t.released = null;
      void discard(t.thread).then(resolve);
    }, RELEASE_MS);
    t.released = () => {
      clearTimeout(timeout);
      t.released = null;
      giveBack(t.thread); // the pool ignores a thread it has dropped
      resolve();
    };
    const m: ToWorker = { type: "release" };
    t.thread.postMessage(m);
  });
}

interface SearchPlan {
  threads: number;
  threadsAtOnce: boolean;
  deadline: number;
  onChange: () => void;
}

/**
 * Runs blocks on this thread (unless `here` is null) and `plan.threads` workers until the
 * frontier is decided or exhausted, or the deadline.
 */
function search(
  setup: SearchSetup,
  here: LocalSearch | null,
  frontier: SearchFrontier,
  plan: SearchPlan,
): Promise<SearchOutcome> {
  const { deadline, onChange } = plan;
  return new Promise((resolve) => {
    const started = Date.now();
    const threads: Lent[] = [];
    // Blocks are handed out in index order: one walk over the seed's generators serves them all.
    const cursor = runCursor(setup.seed);
    let busy = 0;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    let threadCheck: NodeJS.Timeout | undefined;
    let local: Promise<void> = Promise.resolve();
    const finish = (outcome: SearchOutcome) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      if (threadCheck !== undefined) clearTimeout(threadCheck);
      // This thread's run in progress ends first (it checks `settled` between runs); the threads
      // drop theirs and go back to the pool, warm.
      void Promise.all([local, ...threads.map(handBack)]).then(() => resolve(outcome));
    };
    const searchHere = async (here: LocalSearch): Promise<void> => {
      const between = yieldingEvery(YIELD_EVERY_MS);
      for (;;) {
        if (settled) return;
        const block = frontier.next();
        if (block === null) {
          if (busy === 0) finish({ interrupted: false });
          return;
        }
        busy++;
        const r = await runBlock(here.target, here.arb, here.seed, cursor.at(block.start), block.count, {
          passed(passed) {
            frontier.progress(block.start, passed);
            onChange();
          },
          between,
          abandoned: () => settled || !frontier.useful(block.start),
        });
        busy--;
        if (settled) return;
        if (!r.abandoned) {
          frontier.finish(block.start, r.failedAt);
          onChange();
        }
        if (frontier.decided()) {
          finish({ interrupted: false });
          return;
        }
      }
    };
    const feed = (t: Lent) => {
      const block = frontier.next();
      if (block === null) {
        if (busy === 0) finish({ interrupted: false });
        return;
      }
      busy++;
      const m: ToWorker = { type: "block", from: cursor.at(block.start), count: block.count };
      t.thread.postMessage(m);
    };
    const onMessage = (t: Lent, m: FromWorker) => {
      if (m.type === "released") {
        t.released?.();
        return;
      }
      if (settled) return;
      if (m.type === "ready") feed(t);
      else if (m.type === "progress") {
        frontier.progress(m.start, m.passed);
        onChange();
      } else if (m.type === "done") {
        busy--;
        frontier.finish(m.start, m.failedAt);
        onChange();
        if (frontier.decided()) finish({ interrupted: false });
        else feed(t);
      } else finish({ interrupted: false, fatal: m.message });
    };
    if (Number.isFinite(deadline)) {
      timer = setTimeout(() => finish({ interrupted: true }), Math.max(0, deadline - Date.now()));
    }
    const startThreads = () => {
      for (let k = 0; k < plan.threads; k++) {
        const hear = (e: ThreadEvent) => {
          if (e.kind === "message") return onMessage(t, e.message);
          t.lost = true;
          t.released?.();
          finish({ interrupted: false, fatal: e.reason });
        };
        const t: Lent = { thread: borrowThread(hear), lost: false, released: null };
        threads.push(t);
        const m: ToWorker = { type: "search", setup };
        t.thread.postMessage(m);
      }
    };
    /**
     * Whether the work left, at this thread's pace since the last check, is worth the threads'
     * start-up. The pace since the start would not do: the first runs are slower many times
     * over, while V8 compiles them.
     */
    let lastCheck = { at: started, passed: 0, pace: 0 };
    const threadsWorthIt = (): boolean => {
      if (frontier.lowestFailure() !== null) return false;
      const now = Date.now();
      const passed = frontier.passedTotal();
      const pace = (passed - lastCheck.passed) / (now - lastCheck.at);
      const settled = pace > 0 && pace < lastCheck.pace * PACE_SETTLED;
      lastCheck = { at: now, passed, pace };
      if (!settled) return false;
      const leftMs = Math.min(frontier.remaining() / pace, deadline - now);
      return leftMs > THREADS_WORTH_MS;
    };
    const considerThreads = () => {
      threadCheck = undefined;
      if (settled) return;
      if (threadsWorthIt()) startThreads();
      else threadCheck = setTimeout(considerThreads, THREAD_CHECK_MS);
    };
    // Warm threads cost a message, not a second of CPU: they join at once.
    if (plan.threadsAtOnce || warmThreads() >= plan.threads) startThreads();
    else threadCheck = setTimeout(considerThreads, THREAD_CHECK_MS);
    if (here !== null) {
      local = searchHere(here).catch((e: unknown) => finish({ interrupted: false, fatal: String(e) }));
    }
  });
}
