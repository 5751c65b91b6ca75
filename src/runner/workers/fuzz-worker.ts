/**
 * A search thread (pool.ts) of parallel searches (fuzz-parallel.ts). For each search it is
 * lent to, it loads the search's target, runs the blocks of run indices it is handed
 * (run-block.ts), one at a time in the order they arrive, and reports which runs passed and the
 * first that failed; on `release` it drops the rest of its block and waits for the next search.
 */
import { parentPort } from "node:worker_threads";
import type { Arbitrary } from "fast-check";
import type { RunPosition } from "../../generators/run-position.js";
import type { InputError, Result } from "../../result.js";
import type { Schedule } from "../../schedule/schedule.js";
import type { Target } from "../../targets/target.js";
import { fuzzScheduleArb } from "../fuzz.js";
import type { FromWorker, SearchSetup, ToWorker } from "./protocol.js";
import { runBlock } from "./run-block.js";

/** Progress messages at most this often (ms) per block. */
const PROGRESS_EVERY_MS = 100;

const port = parentPort;
if (port === null) throw new Error("fuzz-worker runs as a worker thread");
const send = (m: FromWorker) => port.postMessage(m);

interface Search {
  target: Target;
  arb: Arbitrary<Schedule>;
  seed: number;
}

/** The search being served; null between searches or when its target did not load. */
let search: Search | null = null;
/** Set when `release` arrives: the block in progress stops at its next run. */
let releasing = false;
const targets = new Map<string, Target>();

async function runBlockHere(s: Search, from: RunPosition, count: number) {
  const start = from.index;
  let lastReport = performance.now();
  const { failedAt, abandoned } = await runBlock(s.target, s.arb, s.seed, from, count, {
    passed(passed) {
      const now = performance.now();
      if (now - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = now;
      send({ type: "progress", start, passed });
    },
    // runAndCheck turns the event loop every 50 ms (util/event-loop-turn.ts): a `release` is seen then.
    abandoned: () => releasing,
  });
  if (!abandoned) send({ type: "done", start, failedAt });
}

/** The target named by a spec of target-spec.ts (the module loader only when it is needed). */
async function loadTarget(spec: string): Promise<Result<Target, InputError>> {
  if (spec.startsWith("module:")) {
    const { loadModuleTarget } = await import("../../custom/module-target.js");
    return loadModuleTarget(spec);
  }
  const { findTarget } = await import("../../targets/index.js");
  return findTarget(spec);
}

async function startSearch(setup: SearchSetup): Promise<void> {
  search = null;
  let target = targets.get(setup.target);
  if (target === undefined) {
    const loaded = await loadTarget(setup.target);
    if (!loaded.ok) {
      send({ type: "fatal", message: loaded.error.message });
      return;
    }
    target = loaded.value;
    targets.set(setup.target, target);
  }
  search = { target, arb: fuzzScheduleArb({ ...setup, target }), seed: setup.seed };
  send({ type: "ready" });
}

// Work runs one step at a time, in the order the messages came; `release` also acts at once.
let queue = Promise.resolve();
port.on("message", (m: ToWorker) => {
  if (m.type === "search") {
    queue = queue.then(() => startSearch(m.setup));
  } else if (m.type === "block") {
    queue = queue.then(() => (search === null ? undefined : runBlockHere(search, m.from, m.count)));
  } else {
    releasing = true;
    queue = queue.then(() => {
      releasing = false;
      search = null;
      send({ type: "released" });
    });
  }
});
