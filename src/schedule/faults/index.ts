/**
 * Fault kind → its descriptor (descriptor.ts). A new kind gets a file in this folder and a
 * line here; the `satisfies` makes a kind without a descriptor a type error.
 */
import type { Fault, FaultKind, NodeRef } from "../schedule.js";
import { clockDrift } from "./clock-drift.js";
import { clockJump } from "./clock-jump.js";
import { crash } from "./crash.js";
import { delay } from "./delay.js";
import { delayAt } from "./delay-at.js";
import type { ClientRemap, FaultDescriptor, FaultDescriptors, FaultOf } from "./descriptor.js";
import { partition } from "./partition.js";
import { partitionAt } from "./partition-at.js";
import { pause } from "./pause.js";
import { pauseAt } from "./pause-at.js";
import { pauseInCall } from "./pause-in-call.js";

export type { ClientRemap, FaultDescriptor, FaultOf, RecordedStart } from "./descriptor.js";
export { smallerInts } from "./numbers.js";

export const FAULT_DESCRIPTORS = {
  pause,
  "pause-at": pauseAt,
  "pause-in-call": pauseInCall,
  crash,
  partition,
  "partition-at": partitionAt,
  "clock-jump": clockJump,
  "clock-drift": clockDrift,
  delay,
  "delay-at": delayAt,
} as const satisfies FaultDescriptors;

/**
 * The descriptor of `f`'s kind, typed for `f` itself (the per-kind table cannot express that
 * the kind of the argument and of the descriptor agree, hence the one cast).
 */
export function descriptorOf<K extends FaultKind>(f: FaultOf<K>): FaultDescriptor<K> {
  return (FAULT_DESCRIPTORS as FaultDescriptors)[f.kind as K];
}

/** Each call below passes a fault to its own kind's descriptor. */
export const faultMagnitude = (f: Fault): number => descriptorOf(f).magnitude(f);
export const smallerFaults = (f: Fault): Iterable<Fault> => descriptorOf(f).smaller(f);
export const perturbedFault = (f: Fault, m: number): Fault[] => descriptorOf(f).perturbed(f, m);
export const remapFaultClients = (f: Fault, remap: ClientRemap): Fault | null =>
  descriptorOf(f).remapClients(f, remap);
export const fitFault = (f: Fault, clients: number): Fault | null => descriptorOf(f).fit(f, clients);
export const faultEffectMs = (f: Fault): number => descriptorOf(f).effectMs(f);
export const faultNodes = (f: Fault): NodeRef[] => descriptorOf(f).nodes(f);
export const faultTargetClient = (f: Fault): number | undefined => descriptorOf(f).targetClient(f);

/**
 * Whether a fault moves the clock of a lock server or of the resource (not a client's): only
 * then do real redis-servers need the clock shim, which must be compiled (gcc) before they start.
 */
export const changesServerClock = (f: Fault): boolean =>
  changesClockForGood(f) && (f.node.startsWith("server:") || f.node === "resource");

/**
 * Whether a fault leaves its node changed for the rest of the run: a clock step or drift acts
 * in an instant (its effectMs is 0), but the clock stays where it put it, so a later cycle of
 * its client still runs on the changed clock.
 */
export function changesClockForGood(f: Fault): f is Extract<Fault, { kind: "clock-jump" | "clock-drift" }> {
  return f.kind === "clock-jump" || f.kind === "clock-drift";
}
