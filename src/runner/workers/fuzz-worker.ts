/**
 * Worker thread of a parallel search (fuzz-parallel.ts): runs the blocks of run indices it is
 * handed (run-block.ts), one at a time in the order they arrive, and reports which runs
 * passed and the first that failed.
 */
import { parentPort, workerData } from "node:worker_threads";
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
const setup = workerData as SearchSetup;
const send = (m: FromWorker) => port.postMessage(m);

async function runBlockHere(target: Target, arb: Arbitrary<Schedule>, from: RunPosition, count: number) {
  const start = from.index;
  let lastReport = performance.now();
  const { failedAt } = await runBlock(target, arb, setup.seed, from, count, {
    passed(passed) {
      const now = performance.now();
      if (now - lastReport < PROGRESS_EVERY_MS) return;
      lastReport = now;
      send({ type: "progress", start, passed });
    },
  });
  send({ type: "done", start, failedAt });
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
  port.on("message", (m: ToWorker) => {
    if (m.type === "stop") {
      port.close();
      return;
    }
    queue = queue.then(() => runBlockHere(target.value, arb, m.from, m.count));
  });
  send({ type: "ready" });
}
