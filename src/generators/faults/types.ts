/** The fault variants of the schedule, one type each. */
import type { Fault } from "../../schedule/schedule.js";

export type PauseFault = Extract<Fault, { kind: "pause" }>;
export type PauseAtFault = Extract<Fault, { kind: "pause-at" }>;
export type PauseInCallFault = Extract<Fault, { kind: "pause-in-call" }>;
export type CrashFault = Extract<Fault, { kind: "crash" }>;
export type PartitionFault = Extract<Fault, { kind: "partition" }>;
export type ClockJumpFault = Extract<Fault, { kind: "clock-jump" }>;
export type ClockDriftFault = Extract<Fault, { kind: "clock-drift" }>;
export type DelayFault = Extract<Fault, { kind: "delay" }>;
export type DelayAtFault = Extract<Fault, { kind: "delay-at" }>;
