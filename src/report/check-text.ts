/**
 * The human-readable summary `lockcheck check` prints: one line per checker, then each
 * anomaly with its explanation, then the overall result.
 */
import type { Anomaly, StatValue, Verdict } from "../checkers/verdict.js";
import { formatMs } from "../history/describe.js";
import type { InputError } from "../result.js";
import type { Colors } from "./colors.js";

/** What `lockcheck check` found in a history (its `--json` output). */
export interface CheckOutcome {
  history: string;
  /** Ops read by the streaming checkers (undefined when only linearizable ran). */
  ops: number | undefined;
  valid: Verdict["valid"];
  verdicts: Verdict[];
  warnings: InputError[];
}

/** Anomalies shown per checker; the rest are counted (all are in --json). */
const SHOWN_ANOMALIES = 10;
const WIDTH = 100;

function wrap(text: string, indent: string): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line !== "" && indent.length + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines.map((l) => `${indent}${l}\n`).join("");
}

const num = (v: StatValue | undefined): number | undefined => (typeof v === "number" ? v : undefined);
const ms = (v: StatValue | undefined) => {
  const n = num(v);
  return n === undefined ? "-" : formatMs(n * 1e6);
};

function livenessSummary(s: Record<string, StatValue>): string {
  const ratio = num(s.successRatio);
  const parts = [
    `${s.acquires ?? 0} acquires${ratio === undefined ? "" : `, ${Math.round(ratio * 100)}% succeeded`}`,
    `latency p50 ${ms(s.acquireLatencyP50Ms)}, p99 ${ms(s.acquireLatencyP99Ms)}`,
    `lease overlap ${ms(s.leaseOverlapMs)}`,
  ];
  const jams = num(s.jams) ?? 0;
  if (jams === 0) parts.push("no jams");
  else {
    const still = s.stillJammed === true ? ", still jammed at the end" : "";
    parts.push(`${jams} jam${jams === 1 ? "" : "s"} (longest ${ms(s.jammedMsMax)}${still})`);
  }
  return parts.join("; ");
}

function statsSummary(s: Record<string, StatValue>): string {
  return Object.entries(s)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
}

function status(v: Verdict, c: Colors): string {
  if (v.checker === "liveness") return `${c.cyan("i")} ${v.checker.padEnd(17)} ${c.cyan("info")}`;
  const n = v.anomalies.length;
  const counted = (what: string) => (n === 0 ? "" : ` (${n} ${what}${n === 1 ? "y" : "ies"})`);
  if (v.valid === true) return `${c.green("✓")} ${v.checker.padEnd(17)} ${c.green("valid")}`;
  if (v.valid === false)
    return `${c.red("✗")} ${v.checker.padEnd(17)} ${c.red("VIOLATION")}${counted("anomal")}`;
  return `${c.yellow("?")} ${v.checker.padEnd(17)} ${c.yellow("unknown")}${counted("possible anomal")}`;
}

function anomalyText(a: Anomaly, c: Colors): string {
  const when = a.time === undefined ? "" : ` at ${formatMs(a.time)}`;
  return `    ${c.bold(a.kind)}${when} ${c.dim(`(ops ${a.ops.join(", ")})`)}\n${wrap(a.explanation, "      ")}`;
}

export function formatCheckReport(o: CheckOutcome, c: Colors): string {
  let out = `${c.bold(o.history)}${o.ops === undefined ? "" : `: ${o.ops} ops`}\n`;
  for (const v of o.verdicts) {
    out += `${status(v, c)}\n`;
    if (v.checker === "liveness") out += wrap(livenessSummary(v.stats), "    ");
    else if (
      !["stale-write", "mutual-exclusion", "token-order"].includes(v.checker) &&
      Object.keys(v.stats).length > 0
    ) {
      out += wrap(statsSummary(v.stats), "    ");
    }
    for (const a of v.anomalies.slice(0, SHOWN_ANOMALIES)) out += anomalyText(a, c);
    const hidden = v.anomalies.length - SHOWN_ANOMALIES;
    if (hidden > 0) out += `    … and ${hidden} more listed with --json\n`;
  }
  const bad = o.verdicts.filter((v) => v.valid === false).map((v) => v.checker);
  const unsure = o.verdicts.filter((v) => v.valid === "unknown").map((v) => v.checker);
  if (o.valid === true) out += `${c.green("Result: valid")} — no checker found a problem.\n`;
  else if (o.valid === false) out += `${c.red("Result: VIOLATION")} found by ${bad.join(", ")}.\n`;
  else {
    out += `${c.yellow("Result: unknown")} — ${unsure.join(", ")} could not decide: the outcome depends on operations whose effect is unknown (info), or a limit was reached.\n`;
  }
  return out;
}
