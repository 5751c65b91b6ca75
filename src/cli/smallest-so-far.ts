/**
 * The smallest failure a shrink on real servers has kept so far (`lockcheck shrink`, and
 * `lockcheck fuzz` of a real target): what the commands say as each one is saved, and when
 * they are interrupted. Each command gives the size in its own words.
 */

import type { ServerPlacement } from "../api/catalog.js";
import type { ScheduleSize } from "../api/fuzz.js";
import { placementFlags } from "../api/replay.js";

export interface SmallestSoFar {
  dir: string;
  size: ScheduleSize;
}

/** Said as soon as a smaller failure is saved. */
export function smallerSavedLine(sizeText: string, dir: string): string {
  return `${sizeText} failed on real servers; saved in ${dir}/ (Ctrl-C keeps it)`;
}

/** The command that runs the smallest failure again (on the servers `where` says). */
export function runAgainLine(smallest: SmallestSoFar, where: ServerPlacement): string {
  return `run it again: lockcheck run --schedule ${smallest.dir}${placementFlags(where)}`;
}
