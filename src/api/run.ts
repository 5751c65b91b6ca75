/**
 * `run(options)`: one schedule on one target (simulated or real), checked. The schedule is
 * given, or generated from `seed` with the same generators as `fuzz`.
 */
import { combineValidity, type Validity, type Verdict } from "../checkers/verdict.js";
import { DEFAULT_FAULT_CATEGORIES, type FaultCategory } from "../generators/bounds.js";
import type { Op } from "../history/op.js";
import { colorsFor } from "../report/colors.js";
import { formatTimeline } from "../report/console-timeline.js";
import { runAndCheck } from "../runner/execute.js";
import { loadSchedule, parseSchedule } from "../schedule/load.js";
import type { ResourceMode, Schedule } from "../schedule/schedule.js";
import { generateSchedule } from "./generate-schedule.js";
import { LockcheckInputError, type TargetArg, targetFrom } from "./target-arg.js";

export interface RunOptions {
  /** Default: the schedule's own target. Required when no schedule is given. */
  target?: TargetArg;
  /** A schedule, or the path of a schedule.json. */
  schedule?: Schedule | string;
  /** Without a schedule: generate one from this seed (default 1) … */
  seed?: number;
  /** … with these faults (default all) and this resource mode (default the target's). */
  faults?: readonly FaultCategory[];
  resource?: ResourceMode;
}

export interface RunReport {
  kind: "run";
  target: string;
  schedule: Schedule;
  ops: Op[];
  verdicts: Verdict[];
  violation: boolean;
  valid: Validity;
  /** The history as a human timeline. */
  timeline: string[];
}

export async function run(o: RunOptions): Promise<RunReport> {
  let schedule: Schedule | undefined;
  if (typeof o.schedule === "string") {
    const s = await loadSchedule(o.schedule);
    if (!s.ok) throw new LockcheckInputError("run", [s.error]);
    schedule = s.value;
  } else if (o.schedule !== undefined) {
    const s = parseSchedule(o.schedule);
    if (!s.ok) throw new LockcheckInputError("run", s.error);
    schedule = s.value;
  }
  const targetArg = o.target ?? schedule?.target;
  if (targetArg === undefined)
    throw new LockcheckInputError("run", [{ field: "target", message: "give a target or a schedule" }]);
  const target = await targetFrom(targetArg);
  if (!target.ok) throw new LockcheckInputError("run", [target.error]);
  if (schedule === undefined) {
    schedule = generateSchedule(target.value, {
      seed: o.seed ?? 1,
      faults: o.faults ?? DEFAULT_FAULT_CATEGORIES,
      ...(o.resource === undefined ? {} : { resource: o.resource }),
    });
  } else if (schedule.target !== target.value.name) {
    schedule = { ...schedule, target: target.value.name };
  }
  const checked = await runAndCheck(target.value, schedule);
  return {
    kind: "run",
    target: target.value.name,
    schedule,
    ops: checked.ops,
    verdicts: checked.verdicts,
    violation: checked.violation,
    valid: combineValidity(checked.verdicts.map((v) => v.valid)),
    timeline: formatTimeline(checked.ops, checked.verdicts, { colors: colorsFor({ isTTY: false }) }),
  };
}
