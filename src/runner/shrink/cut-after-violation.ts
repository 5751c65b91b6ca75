/**
 * The schedule cut short just after its violation. A real run lasts as long as its horizon
 * (clients that repeat their cycles keep going to the end), so a failure found 7 s into a
 * 90 s run costs 90 s per shrinking candidate; everything after the stale write only adds
 * time and faults. The cut ends the run a little after the last op the violation involves
 * completed, and keeps the faults that had fired (or were due) before then. Up to the cut the
 * run is the same schedule, so on a deterministic world the violation stays; on real servers
 * the candidate is run again like any other and kept only if it still fails.
 *
 * A client measures the horizon on its own clock (src/workload/client.ts), so a client clock
 * jumped or drifting forward would stop it early under a shorter horizon: the cut leaves room
 * for every forward jump and drift of a client's clock before it.
 */
import { isNemesisOp, type Op } from "../../history/op.js";
import { faultEffectMs } from "../../schedule/faults/index.js";
import type { Schedule } from "../../schedule/schedule.js";
import { firedAtMs, NS_PER_MS } from "./cycle-spans.js";
import type { FailureEvidence } from "./shrink-focus.js";

/** Time left after the violation's last op: enough for its replies and the run's own end. */
export function cutSlackMs(s: Schedule): number {
  return Math.max(2 * s.options.ttlMs, 1000);
}

/** When the last op the first anomaly names completed (ms since the run began); undefined: unknown. */
export function violationEndMs(ops: readonly Op[], evidence: FailureEvidence): number | undefined {
  const anomaly = evidence.anomalies[0];
  if (anomaly === undefined || anomaly.ops.length === 0) return undefined;
  let endNs = -1;
  for (const index of anomaly.ops) {
    const op = ops[index];
    if (op === undefined) return undefined;
    endNs = Math.max(endNs, op.time);
    if (op.type !== "invoke" || isNemesisOp(op)) continue;
    // The completion of an invoke, if the history has one.
    for (let k = index + 1; k < ops.length; k++) {
      const next = ops[k];
      if (next !== undefined && next.process === op.process && next.type !== "invoke") {
        endNs = Math.max(endNs, next.time);
        break;
      }
    }
  }
  return endNs < 0 ? undefined : endNs / NS_PER_MS;
}

/** How far ahead of real time a client's clock can be by `endMs`, at most (summed over clients). */
function clientClockAheadMs(s: Schedule, endMs: number): number {
  let ahead = 0;
  for (const f of s.faults) {
    if (f.kind !== "clock-jump" && f.kind !== "clock-drift") continue;
    if (!f.node.startsWith("client:") || f.at >= endMs) continue;
    ahead += f.kind === "clock-jump" ? Math.max(0, f.deltaMs) : Math.max(0, f.rate) * (endMs - f.at);
  }
  return ahead;
}

/**
 * `s` ending `cutSlackMs` after its violation, without the faults that had neither fired nor
 * come due by then; null when that would not shorten the run.
 */
export function cutAfterViolation(s: Schedule, evidence: FailureEvidence): Schedule | null {
  const endMs = violationEndMs(evidence.ops, evidence);
  if (endMs === undefined) return null;
  return cutAt(s, evidence, Math.ceil(endMs + clientClockAheadMs(s, endMs) + cutSlackMs(s)));
}

/**
 * `cutAfterViolation` for a violation the simulator twin showed, for runs on real servers.
 * There clients keep another pace, and the same kind of violation may come from a later fault
 * than in the twin: the cut comes after every fault that began by then has ended (a clock
 * jump at once, a pause at its end), with `roomFactor` times the room.
 */
export function cutAfterTwinViolation(
  s: Schedule,
  evidence: FailureEvidence,
  roomFactor = 2,
): Schedule | null {
  const endMs = violationEndMs(evidence.ops, evidence);
  if (endMs === undefined) return null;
  const room = roomFactor * cutSlackMs(s);
  let lastEnd = endMs;
  for (const f of s.faults) {
    const at = firedAtMs(f, evidence.ops);
    const effect = faultEffectMs(f);
    if (at === undefined || at >= endMs + room) continue;
    // A crash with no restart never ends: it only needs to have begun.
    lastEnd = Math.max(lastEnd, Number.isFinite(effect) ? at + effect : at);
  }
  return cutAt(s, evidence, Math.ceil(lastEnd + clientClockAheadMs(s, lastEnd) + room));
}

function cutAt(s: Schedule, evidence: FailureEvidence, horizonMs: number): Schedule | null {
  if (horizonMs >= s.options.horizonMs) return null;
  const faults = s.faults.filter((f) => {
    const at = firedAtMs(f, evidence.ops);
    return at !== undefined && at < horizonMs;
  });
  return { ...s, options: { ...s.options, horizonMs }, faults };
}
