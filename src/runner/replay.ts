/**
 * Replaying a saved schedule: run it again on its target (or another one, e.g. the real
 * world's version of a simulated target) and check the history. `twice` runs it a second
 * time and compares the two histories byte for byte — a determinism check for the simulator,
 * and a flakiness check for real targets.
 */
import { serializeOp } from "../history/jsonl.js";
import { err, type InputError, ok, type Result } from "../result.js";
import type { Schedule } from "../schedule/schedule.js";
import { findTarget } from "../targets/index.js";
import type { ServerPlacement } from "../targets/target.js";
import { type CheckedRun, runAndCheck, runAndCheckOn } from "./execute.js";
import { openSessionPool, sessionOptionsFor } from "./session-pool.js";

export interface ReplayOptions extends ServerPlacement {
  /** Run on this target instead of the schedule's own. */
  target?: string;
  twice?: boolean;
}

export interface HistoryDifference {
  /** First line (0-based op position) where the two histories differ. */
  index: number;
  first: string | null;
  second: string | null;
}

export interface ReplayResult {
  run: CheckedRun;
  /** With `twice`: null if both runs recorded identical histories, else where they differ. */
  difference: HistoryDifference | null;
}

/** Where two histories first differ, serialized as JSONL lines; null if identical. */
export function firstDifference(a: CheckedRun["ops"], b: CheckedRun["ops"]): HistoryDifference | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] === undefined ? null : serializeOp(a[i]!);
    const y = b[i] === undefined ? null : serializeOp(b[i]!);
    if (x !== y) return { index: i, first: x, second: y };
  }
  return null;
}

export async function replaySchedule(
  schedule: Schedule,
  o: ReplayOptions = {},
): Promise<Result<ReplayResult, InputError>> {
  const name = o.target ?? schedule.target;
  const target = findTarget(name, o.target === undefined ? "target" : "--target");
  if (!target.ok) return err(target.error);
  const s = name === schedule.target ? schedule : { ...schedule, target: name };
  if (target.value.deterministic && (o.cluster ?? "process") !== "process")
    return err({
      field: "--cluster",
      message: `only for real targets (redis:…, etcd:…); ${name} runs in the simulator`,
    });
  // Real servers (local processes or containers) start once, for both runs of `twice`.
  const opened = target.value.deterministic
    ? ok(null)
    : await openSessionPool(target.value, sessionOptionsFor(s, o), 1);
  if (!opened.ok) return err({ message: opened.error });
  const pool = opened.value;
  const once = () =>
    pool === null ? runAndCheck(target.value, s) : pool.use((session) => runAndCheckOn(session, s));
  try {
    const run = await once();
    if (!o.twice) return ok({ run, difference: null });
    const again = await once();
    return ok({ run, difference: firstDifference(run.ops, again.ops) });
  } finally {
    await pool?.close();
  }
}
