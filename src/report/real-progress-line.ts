/**
 * The line `lockcheck run` prints once a second on real servers. Faults in effect are named
 * once each, with a count when several alike overlap (two partitions of the same groups).
 */

/** What the line shows of a run's progress (src/real/run.ts `RealProgress`). */
export interface RealProgressShown {
  elapsedMs: number;
  events: number;
  faultsBegun: number;
  faults: number;
  activeFaults: readonly string[];
}

export function activeFaultsText(labels: readonly string[]): string {
  if (labels.length === 0) return "none";
  const counts = new Map<string, number>();
  for (const label of labels) counts.set(label, (counts.get(label) ?? 0) + 1);
  return [...counts].map(([label, n]) => (n === 1 ? label : `${label} ×${n}`)).join(", ");
}

export function realProgressLine(p: RealProgressShown): string {
  const seconds = (p.elapsedMs / 1000).toFixed(0).padStart(3);
  return `  ${seconds}s  ${p.events} events  faults: ${p.faultsBegun} of ${p.faults} begun, active: ${activeFaultsText(p.activeFaults)}`;
}
