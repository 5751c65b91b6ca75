/**
 * What a docker cluster cannot do with a schedule, said before anything starts.
 *
 * Containers share the host kernel's clock: there is no per-container wall clock to step or
 * skew (the process backend's LD_PRELOAD shim would have to be baked into each image and is
 * not), so `clock-jump` and `clock-drift` faults are rejected rather than silently ignored.
 */
import { err, type InputError, ok, type Result } from "../../result.js";
import type { Schedule } from "../../schedule/schedule.js";

export const DOCKER_CLOCK_LIMITATION =
  "containers share the host's clock, so a docker cluster cannot offset, jump or drift one server's " +
  "clock; run clock faults with --cluster process or in the simulator (sim:…)";

/** Every fault of `schedule` a docker cluster cannot apply, located by JSON path. */
export function checkScheduleForDocker(schedule: Schedule, file?: string): Result<void, InputError[]> {
  const problems: InputError[] = [];
  schedule.faults.forEach((fault, i) => {
    if (fault.kind === "clock-jump" || fault.kind === "clock-drift") {
      problems.push({
        ...(file === undefined ? {} : { file }),
        field: `faults[${i}]`,
        message: `${fault.kind} of ${fault.node} cannot run with --cluster docker: ${DOCKER_CLOCK_LIMITATION}`,
      });
    }
  });
  return problems.length === 0 ? ok(undefined) : err(problems);
}
