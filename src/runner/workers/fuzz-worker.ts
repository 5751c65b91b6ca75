/**
 * Searcher process of a parallel search (fuzz-parallel.ts, started by pool.ts with the
 * search's setup as its argument): runs the blocks of run indices it is handed (run-block.ts),
 * one at a time in the order they arrive, and reports which runs passed and the first that
 * failed. It exits when told to stop, or when its coordinator is gone.
 */
import type { Arbitrary } from "fast-check";
import type { InputError, Result } from "../../result.js";
import type { Schedule } from "../../schedule/schedule.js";
import type { Target } from "../../targets/target.js";
import { fuzzScheduleArb } from "../fuzz.js";
import type { FromWorker, SearchSetup, ToWorker } from "./protocol.js";
import { runBlock } from "./run-block.js";

/** Progress messages at most this often (ms) per block. */
const PROGRESS_EVERY_MS = 100;
const YIELD_EVERY_RUNS = 32;
const NO_WAIT = Promise.resolve();
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

if (process.send === undefined) throw new Error("fuzz-worker runs as a child process with an IPC channel");
const setup = JSON.parse(process.argv[2] ?? "null") as SearchSetup;
const send = (m: FromWorker) => {
  if (process.connected) process.send!(m);
};
process.on("disconnect", () => process.exit(0));

async function runBlockHere(target: Target, arb: Arbitrary<Schedule>, start: number, count: number) {
  let lastReport = performance.now();
  let sinceYield = 0;
  const { failedAt, abandoned } = await runBlock(target, arb, setup.seed, start, count, {
    passed(passed) {
      const now = performance.now();
      if (now - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = now;
      send({ type: "progress", start, passed });
    },
    // Now and then the event loop runs, so that a coordinator gone away is noticed (and this
    // process exits) within a few runs rather than at the end of a long block.
    between: () => (++sinceYield % YIELD_EVERY_RUNS === 0 ? nextTurn() : NO_WAIT),
    abandoned: () => !process.connected,
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

const target = await loadTarget(setup.target);
if (!target.ok) {
  send({ type: "fatal", message: target.error.message });
} else {
  const arb = fuzzScheduleArb({ ...setup, target: target.value });
  // Blocks run one at a time, in the order they arrive.
  let queue = Promise.resolve();
  process.on("message", (m: ToWorker) => {
    if (m.type === "stop") {
      process.exit(0);
    }
    queue = queue.then(() => runBlockHere(target.value, arb, m.start, m.count));
  });
  send({ type: "ready" });
}
