/** fast-check arbitraries for lockcheck schedules: workloads, faults and whole schedules. */
export {
  checkBounds,
  DEFAULT_FAULT_CATEGORIES,
  DEFAULT_PAUSE_KINDS,
  defaultFaultBounds,
  defaultWorkloadBounds,
  FAULT_CATEGORIES,
  type FaultBounds,
  type FaultCategory,
  PAUSE_KINDS,
  type PauseKind,
  type WorkloadBounds,
} from "./bounds.js";
export * from "./faults/index.js";
export { fitFault, fitFaultsToClients } from "./fit.js";
export { type HuntArbOptions, huntScheduleArb } from "./hunt.js";
export { clientRefs, nodeArb, nodeSetArb, serverRefs } from "./nodes.js";
export { type ScheduleArbOptions, scheduleArb, seedArb } from "./schedule.js";
export { clientsArb, cycleArb, cyclesArb } from "./workload.js";
