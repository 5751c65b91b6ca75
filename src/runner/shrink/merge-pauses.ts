/**
 * Fewer pause faults that mean the same, or nearly: a candidate the shrinkers try early.
 *
 * Timed pauses of one node that overlap are one pause from the first start to the last end,
 * exactly: pauses nest in every world (a simulated node's depth, a process's, a container's),
 * so the node runs again only when the last of them ends. A real shrink left a client's pause
 * of 2,624 ms with one of 2,000 ms inside it, found by fuzz and kept because each removal costs
 * two real runs.
 *
 * One pause for a client's pauses that follow each other inside the same call. A client's
 * `pause-in-call` faults on one call are timers of the client: one that comes due while the
 * client is stopped by another fires when it runs again, and stops it again at once. Several
 * of them (real shrinking, with its few candidates, left three on one acquire: 837, 1,182 and
 * 1,483 ms) freeze the client almost as one pause as long as the chain, which is the candidate
 * made here — a schedule with fewer faults that means nearly the same. (Not exactly: between
 * two pauses of a chain the client reads the replies that came; the shrinker keeps the
 * candidate only if it still fails.)
 */
import type { Fault, Schedule } from "../../schedule/schedule.js";

type PauseInCall = Extract<Fault, { kind: "pause-in-call" }>;
type TimedPause = Extract<Fault, { kind: "pause" }>;

/** `s` with both merges below, or null when neither changes anything. */
export function withPausesMerged(s: Schedule): Schedule | null {
  const chained = withChainedPausesMerged(s);
  return withOverlappingPausesMerged(chained ?? s) ?? chained;
}

/**
 * `s` with each node's overlapping timed pauses as one, or null when no two overlap. Two that
 * only touch (one ends as the next starts) are left alone: the node may run in between.
 */
export function withOverlappingPausesMerged(s: Schedule): Schedule | null {
  const byNode = groupedBy(
    s,
    (f): f is TimedPause => f.kind === "pause",
    (f) => f.node,
  );
  const replaced = new Map<Fault, TimedPause | null>();
  for (const pauses of byNode) {
    if (pauses.length < 2) continue;
    const inOrder = [...pauses].sort((a, b) => a.at - b.at);
    let group = [inOrder[0]!];
    let end = inOrder[0]!.at + inOrder[0]!.durationMs;
    const close = () => {
      if (group.length < 2) return;
      const first = group[0]!;
      replaced.set(first, { ...first, durationMs: end - first.at });
      for (const f of group.slice(1)) replaced.set(f, null);
    };
    for (const f of inOrder.slice(1)) {
      if (f.at < end) {
        group.push(f);
        end = Math.max(end, f.at + f.durationMs);
      } else {
        close();
        group = [f];
        end = f.at + f.durationMs;
      }
    }
    close();
  }
  return replaced.size === 0 ? null : replacedIn(s, replaced);
}

/** The faults of `s` that are `F`s, in groups of the same `key`, each in schedule order. */
function groupedBy<F extends Fault>(
  s: Schedule,
  is: (f: Fault) => f is F,
  key: (f: F) => string,
): Iterable<F[]> {
  const groups = new Map<string, F[]>();
  for (const f of s.faults) {
    if (!is(f)) continue;
    const same = groups.get(key(f));
    if (same === undefined) groups.set(key(f), [f]);
    else same.push(f);
  }
  return groups.values();
}

/** `s` with the faults of `replaced` swapped (or dropped: null), in their places. */
function replacedIn(s: Schedule, replaced: ReadonlyMap<Fault, Fault | null>): Schedule {
  const faults: Fault[] = [];
  for (const f of s.faults) {
    const r = replaced.get(f);
    if (r === undefined) faults.push(f);
    else if (r !== null) faults.push(r);
  }
  return { ...s, faults };
}

const callKey = (f: PauseInCall): string => `${f.client}/${f.call}/${f.occurrence}`;

/** `s` with each chain of a call's overlapping pauses as one pause, or null when there is none. */
export function withChainedPausesMerged(s: Schedule): Schedule | null {
  const byCall = groupedBy(s, (f): f is PauseInCall => f.kind === "pause-in-call", callKey);
  const replaced = new Map<Fault, PauseInCall | null>();
  for (const pauses of byCall) {
    if (pauses.length < 2) continue;
    const inOrder = [...pauses].sort((a, b) => a.afterMs - b.afterMs);
    let first = inOrder[0]!;
    let end = first.afterMs + first.durationMs;
    let chain = [first];
    const close = () => {
      if (chain.length < 2) return;
      replaced.set(chain[0]!, { ...first, durationMs: end - first.afterMs });
      for (const f of chain.slice(1)) replaced.set(f, null);
    };
    for (const f of inOrder.slice(1)) {
      if (f.afterMs <= end) {
        // Due while the client is stopped: it stops it again as soon as it runs.
        end += f.durationMs;
        chain.push(f);
      } else {
        close();
        first = f;
        end = f.afterMs + f.durationMs;
        chain = [f];
      }
    }
    close();
  }
  return replaced.size === 0 ? null : replacedIn(s, replaced);
}
