/**
 * What a gate run reports, per target and per corpus entry, and why an unmet expectation
 * failed: the shapes src/runner/gate/gate.ts fills and the console table and JUnit output render.
 */

import type { Validity } from "../checkers/verdict.js";
import type { FaultCategory } from "../generators/bounds.js";
import type { ResourceMode } from "../schedule/schedule.js";

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/**
 * Where an item's runs ran: in the simulator, or on real servers lockcheck started, as local
 * processes ("servers") or in containers ("docker").
 */
export type RanOn = "simulator" | "servers" | "docker";

export interface TargetResult {
  kind: "target";
  name: string;
  target: string;
  /** A module's real-server target (the entry's `real`), not its simulator one. */
  real?: true;
  /** Where its runs ran (absent when the target could not be loaded, and from gates older than it). */
  ranOn?: RanOn;
  resource: ResourceMode | null;
  expect: "safe" | "unsafe";
  seed: number;
  faults: FaultCategory[];
  /** Schedules tried (not counting shrinking). */
  runs: number;
  /** 1 if a violation was found (the search stops at the first). */
  violations: number;
  interrupted: boolean;
  elapsedMs: number;
  met: boolean;
  /**
   * Where the failing run was saved, how to replay it, and what the checkers flagged: each
   * safety checker that failed with its anomaly kinds, `token-order (token-reuse)`. (`flagged`
   * is absent from the --json of gates older than it.)
   */
  counterexample?: { dir: string; replay: string; foundAtRun: number; flagged?: string[] };
  error?: string;
  /**
   * Real targets: runs in which the library ended client processes (it threw outside a call),
   * the processes ended in all, and the first one's warning (FuzzResult.libraryCrashes).
   */
  libraryCrashes?: { runs: number; clients: number; first: string };
}

export interface GateReport {
  version: 1;
  /** null: the whole gate; else which shard this is. */
  shard: Shard | null;
  results: GateResult[];
  /** True when every expectation was met. */
  ok: boolean;
  elapsedMs: number;
}

export interface CorpusResult {
  kind: "corpus";
  name: string;
  dir: string;
  mode: "re-run" | "re-check";
  /** A re-run entry: where its run ran (absent for a re-checked history, and from gates older than it). */
  ranOn?: RanOn;
  /** Checker → recorded verdict. */
  expected: Record<string, Validity>;
  /** Checker → verdict now. */
  actual: Record<string, Validity>;
  /** One line per checker whose verdict changed. */
  mismatches: string[];
  met: boolean;
  elapsedMs: number;
  /** The command that reproduces this entry's check. */
  replay: string;
  error?: string;
}

export type GateResult = TargetResult | CorpusResult;

/** Why a result failed, in one line, and what to run to see it. */
export function failureText(r: GateResult): { message: string; details: string } {
  if (r.kind === "target") {
    if (r.error !== undefined && r.counterexample === undefined)
      return { message: r.error, details: r.error };
    if (r.expect === "safe") {
      const ce = r.counterexample;
      const flagged = ce?.flagged !== undefined && ce.flagged.length > 0 ? ce.flagged.join(", ") : null;
      return {
        message: `expected safe, but ${flagged === null ? "a violation was found" : `${flagged} failed`} in run ${ce?.foundAtRun ?? "?"} of seed ${r.seed}`,
        details: [
          `${r.name}: the lock regressed — the checkers flagged ${flagged ?? "a violation"}.`,
          ce ? `minimal counterexample saved in ${ce.dir} (open report.html there)` : "",
          ce ? `replay: ${ce.replay}` : "",
          r.error ?? "",
        ]
          .filter((l) => l !== "")
          .join("\n"),
      };
    }
    return {
      message: `expected the known violation, but none was found in ${r.runs} runs of seed ${r.seed}`,
      details:
        `${r.name} is a known-unsafe canary: lockcheck must keep finding its violation.\n` +
        "No violation within the budget means a checker or the schedule generator lost its power (or the budget is too small).\n" +
        `reproduce: lockcheck fuzz --target ${r.target}${r.real === true ? " --real" : ""}${r.resource ? ` --resource ${r.resource}` : ""} --seed ${r.seed} --runs ${r.runs} --faults ${r.faults.join(",") || "none"}`,
    };
  }
  if (r.error !== undefined) return { message: r.error, details: `${r.error}\nreproduce: ${r.replay}` };
  return {
    message: `verdict changed: ${r.mismatches.join("; ")}`,
    details: `${r.name} no longer gets its recorded verdict:\n${r.mismatches.map((m) => `  ${m}`).join("\n")}\nreproduce: ${r.replay}`,
  };
}
