/**
 * Shrinking a client pause whose clocks stop (`clocks: "stopped"`): first try it as a plain
 * pause, whose clocks run on. If that fails too, the clocks were not what broke the lock.
 */
import type { PauseClocks } from "../refs.js";

export function* withClocksRunning<F extends { clocks?: PauseClocks }>(f: F): Generator<F> {
  if (f.clocks === undefined) return;
  const { clocks: _, ...plain } = f;
  yield plain as F;
}

/** What stopping the clocks adds to a pause's size: a pause whose clocks run on is smaller. */
export const clocksMagnitude = (f: { clocks?: PauseClocks }): number => (f.clocks === undefined ? 0 : 1);

/** `clocks` as a field to spread into a fault, a message or a recorded value: none when absent. */
export const clocksField = (clocks: PauseClocks | undefined): { clocks?: PauseClocks } =>
  clocks === undefined ? {} : { clocks };

/** What a pause's label adds for its clocks: ", clocks stopped", or nothing. */
export const clocksLabel = (clocks: PauseClocks | undefined): string =>
  clocks === undefined ? "" : ", clocks stopped";
