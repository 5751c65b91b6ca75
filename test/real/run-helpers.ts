/** Running one schedule for real in a test, with the hygiene checks every real test ends with. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect } from "vitest";
import { checkOps, SAFETY_CHECKERS } from "../../src/checkers/index.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import { loadModule } from "../../src/custom/module-target.js";
import { isNemesisOp, type Op, type WriteOp } from "../../src/history/op.js";
import { newRunId, type RealRun, type RealRunOptions, runReal } from "../../src/real/run.js";
import { type FuzzOptions, fuzz } from "../../src/runner/fuzz.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { realTargetFor } from "../../src/targets/real.js";
import type { Target } from "../../src/targets/target.js";
import { processesMatching, stoppedProcessesMatching, tempDirsMatching, waitForNone } from "./helpers.js";

export interface CheckedRealRun {
  runId: string;
  /** The history as short lines, for assertion messages (a failing real run is hard to rerun). */
  timeline: string;
  run: RealRun;
  verdicts: Verdict[];
  /** Safety checkers that said `false`. */
  violations: string[];
  /** Writes the resource answered `accepted: false`. */
  rejectedWrites: WriteOp[];
}

/** `options`: extra run options, e.g. `{ cluster: "docker", docker: { images } }` (test/docker/). */
export async function runChecked(
  schedule: Schedule,
  options: Omit<RealRunOptions, "outDir"> = {},
): Promise<CheckedRealRun> {
  const target = realTargetFor(schedule.target);
  if (target === undefined) throw new Error(`no real target ${schedule.target}`);
  const runId = newRunId();
  const outDir = mkdtempSync(join(tmpdir(), "lockcheck-test-out-"));
  try {
    const r = await runReal(
      schedule,
      { algorithm: target.algorithm, servers: target.name.startsWith("etcd:") ? "etcd" : "redis" },
      { ...options, outDir },
      runId,
    );
    if (!r.ok) throw new Error(r.error);
    const verdicts = checkOps(r.value.ops);
    const safety: readonly string[] = SAFETY_CHECKERS;
    return {
      runId,
      timeline: timeline(r.value.ops),
      run: r.value,
      verdicts,
      violations: verdicts
        .filter((v) => safety.includes(v.checker) && v.valid === false)
        .map((v) => v.checker),
      rejectedWrites: r.value.ops.filter(
        (o: Op): o is WriteOp =>
          o.process !== "nemesis" && o.f === "write" && o.type === "ok" && o.accepted === false,
      ),
    };
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

/** What a run left behind: processes (any state), stopped processes, temp dirs. */
export async function leftovers(
  runId: string,
): Promise<{ processes: string[]; stopped: string[]; dirs: string[] }> {
  return {
    processes: await waitForNone(() => processesMatching(runId), 5000),
    stopped: stoppedProcessesMatching(runId),
    dirs: await waitForNone(() => tempDirsMatching(runId), 2000),
  };
}

/**
 * Registers an afterEach that checks the last run handed to the returned function left nothing
 * behind (processes, stopped processes, temp dirs), plus what `more` checks for that run.
 */
export function expectNothingLeftAfterEach(more?: (runId: string) => Promise<void>): (runId: string) => void {
  let last: string | null = null;
  afterEach(async () => {
    if (last === null) return;
    const runId = last;
    last = null;
    expect(await leftovers(runId)).toEqual({ processes: [], stopped: [], dirs: [] });
    await more?.(runId);
  });
  return (runId) => {
    last = runId;
  };
}

function timeline(ops: readonly Op[]): string {
  return ops
    .map((o) => {
      const ms = (o.time / 1e6).toFixed(0).padStart(6);
      if (isNemesisOp(o)) return `${ms} nemesis ${o.f} ${o.node ?? ""} ${JSON.stringify(o.value)}`;
      const extra = [o.grant, o.f === "write" ? o.accepted : undefined, o.error].filter(
        (x) => x !== undefined,
      );
      return `${ms} client:${o.process} ${o.type} ${o.f} ${extra.join(" ")}`;
    })
    .join("\n");
}

/**
 * Whether another client was granted the lock while `client` was paused (between its first
 * `pause` and the `resume` after it). Under a heavily loaded machine an etcd leader change can
 * renew the paused client's lease, so nobody takes over and the fence has nothing to refuse.
 */
export function takenOverWhilePaused(ops: readonly Op[], client: number): boolean {
  const node = `client:${client}`;
  const pause = ops.find((o) => isNemesisOp(o) && o.f === "pause" && o.node === node);
  if (pause === undefined) return false;
  const resume = ops.find(
    (o) => isNemesisOp(o) && o.f === "resume" && o.node === node && o.time >= pause.time,
  );
  const end = resume?.time ?? Number.POSITIVE_INFINITY;
  return ops.some(
    (o) =>
      !isNemesisOp(o) &&
      o.process !== client &&
      o.f === "acquire" &&
      o.type === "ok" &&
      o.time > pause.time &&
      o.time < end,
  );
}

/**
 * Whether `client` completed a write (accepted or refused) under the grant it held when it was
 * paused, after it resumed: only then had the fence anything to refuse.
 */
export function wroteAfterResume(ops: readonly Op[], client: number): boolean {
  const node = `client:${client}`;
  const resume = ops.find((o) => isNemesisOp(o) && o.f === "resume" && o.node === node);
  if (resume === undefined) return false;
  const held = ops.find(
    (o) =>
      !isNemesisOp(o) && o.process === client && o.f === "acquire" && o.type === "ok" && o.time < resume.time,
  );
  if (held === undefined || isNemesisOp(held)) return false;
  return ops.some(
    (o) =>
      !isNemesisOp(o) &&
      o.process === client &&
      o.f === "write" &&
      o.type === "ok" &&
      o.time > resume.time &&
      o.grant === held.grant,
  );
}

/** A short real campaign: 6 runs of 5 s with pauses, unfenced, seed 11, no shrinking; `o` overrides. */
export function shortFuzz(t: Target, o: Partial<FuzzOptions> = {}) {
  return fuzz({
    target: t,
    resource: "unfenced",
    seed: 11,
    runs: 6,
    faults: ["pause"],
    options: { horizonMs: 5000 },
    shrink: false,
    ...o,
  });
}

/** The target of a library adapter in test/fixtures/libraries/ (e.g. "watchdog-lock.mjs"). */
export async function fixtureLibrary(file: string): Promise<Target> {
  const dir = fileURLToPath(new URL("../fixtures/libraries/", import.meta.url));
  const loaded = await loadModule(`module:./${file}`, dir);
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return loaded.value.target;
}
