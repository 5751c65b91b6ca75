/**
 * What a docker cluster cannot do with a schedule, said before anything starts.
 *
 * Containers share the host kernel's clock: there is no per-container wall clock to step or
 * skew (the process backend's LD_PRELOAD shim is not in the images), so `clock-jump` and
 * `clock-drift` faults on a server or the resource are rejected rather than silently
 * ignored. Clients are processes on this machine in both backends, and their clock faults
 * work as with local processes.
 */
import { err, type InputError, ok, type Result } from "../../result.js";
import type { Schedule } from "../../schedule/schedule.js";

export const DOCKER_CLOCK_LIMITATION =
  "containers share the host's clock, so a docker cluster cannot jump or drift a server's clock; " +
  "run server clock faults with --cluster process or in the simulator";

/** Every fault of `schedule` a docker cluster cannot apply, located by JSON path. */
export function checkScheduleForDocker(schedule: Schedule, file?: string): Result<void, InputError[]> {
  const problems: InputError[] = [];
  schedule.faults.forEach((fault, i) => {
    if ((fault.kind === "clock-jump" || fault.kind === "clock-drift") && !fault.node.startsWith("client:")) {
      problems.push({
        ...(file === undefined ? {} : { file }),
        field: `faults[${i}]`,
        message: `${fault.kind} of ${fault.node} cannot run with --cluster docker: ${DOCKER_CLOCK_LIMITATION}`,
      });
    }
  });
  return problems.length === 0 ? ok(undefined) : err(problems);
}
