import type { ScheduleSize } from "../../src/runner/schedule-size.js";

/** A schedule size with the counts the CLI's lines show (the rest zero). */
export const sizeOf = (clients: number, cycles: number, faults: number): ScheduleSize => ({
  clients,
  cycles,
  writes: 0,
  faults,
  faultMs: 0,
  workloadMs: 0,
  clientIds: 0,
  repeating: 0,
});
