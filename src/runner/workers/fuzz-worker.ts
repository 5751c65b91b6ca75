/**
 * Worker thread of a parallel search (fuzz-parallel.ts): runs the blocks of run indices it is
 * handed, each schedule generated from (seed, index) exactly as the sequential search would,
 * and reports which runs passed and the first that failed. A run that throws counts as a
 * failure: the coordinator replays that index in-process, where the error is reported as the
 * sequential search reports it.
 */
import { parentPort, workerData } from "node:worker_threads";
import fc from "fast-check";
import { SAFETY_CHECKERS } from "../../../checkers/index.js";
import type { InputError, Result } from "../../result.js";
import type { Schedule } from "../../schedule/schedule.js";
import type { Target } from "../../targets/target.js";
import { runAndCheck } from "../execute.js";
import { fuzzScheduleArb } from "../fuzz.js";
import { violationKind } from "../same-violation.js";
import type { FromWorker, SearchSetup, ToWorker } from "./protocol.js";

/** Progress messages at most this often (ms) per block. */
const PROGRESS_EVERY_MS = 100;

const port = parentPort;
if (port === null) throw new Error("fuzz-worker runs as a worker thread");
const setup = workerData as SearchSetup;
const send = (m: FromWorker) => port.postMessage(m);

async function fails(target: Target, schedule: Schedule): Promise<boolean> {
  try {
    const run = await runAndCheck(target, schedule, SAFETY_CHECKERS);
    return violationKind(run.verdicts) !== null;
  } catch {
    return true;
  }
}

async function runBlock(target: Target, arb: fc.Arbitrary<Schedule>, start: number, count: number) {
  const schedules = fc.sample(arb, { seed: setup.seed, path: String(start), numRuns: count });
  let lastReport = performance.now();
  for (let k = 0; k < schedules.length; k++) {
    if (await fails(target, schedules[k]!)) {
      send({ type: "done", start, failedAt: start + k });
      return;
    }
    const now = performance.now();
    if (now - lastReport >= PROGRESS_EVERY_MS) {
      lastReport = now;
      send({ type: "progress", start, passed: k + 1 });
    }
  }
  send({ type: "done", start, failedAt: null });
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
    queue = queue.then(() => runBlock(target.value, arb, m.start, m.count));
  });
  send({ type: "ready" });
}
