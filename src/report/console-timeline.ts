/**
 * A short human timeline of a (small) history for the console: one line per completed call
 * (when it was sent → when it completed, who, what, outcome) and one per fault, with the
 * ops an anomaly cites marked, followed by each anomaly's explanation. Meant for minimal
 * counterexamples; long histories are cut in the middle.
 */
import type { Verdict } from "../checkers/verdict.js";
import { type ClientId, type ClientOp, isNemesisOp, type NemesisOp, type Op } from "../history/op.js";
import { type Colors, colorsFor } from "./colors.js";

export interface TimelineOptions {
  colors?: Colors;
  /** Most event lines shown; default 60. */
  maxLines?: number;
}

function ms(ns: number): string {
  return (ns / 1e6).toFixed(1);
}

function who(op: Op): string {
  return op.process === "nemesis" ? "nemesis" : `client ${op.process}`;
}

function describeFault(op: NemesisOp): string {
  const v = op.value;
  const detail =
    v !== null && typeof v === "object"
      ? Object.entries(v as Record<string, unknown>)
          .filter(([k]) => k !== "ref" && k !== "node")
          .map(([k, x]) => `${k}=${typeof x === "object" ? JSON.stringify(x) : String(x)}`)
          .join(" ")
      : v === undefined
        ? ""
        : String(v);
  return [op.f, op.node, detail].filter((p) => p !== undefined && p !== "").join(" ");
}

function describeCall(invoke: ClientOp | undefined, done: ClientOp): string {
  const grant = done.grant ?? invoke?.grant;
  const tokenOf = (op: ClientOp | undefined) => (op !== undefined && "token" in op ? op.token : undefined);
  const token = tokenOf(done) ?? tokenOf(invoke);
  const holder = [grant === undefined ? "" : `grant ${grant}`, token === undefined ? "" : `token ${token}`]
    .filter((x) => x !== "")
    .join(", ");
  let outcome: string = done.type;
  if (done.f === "write" && done.type === "ok") outcome = done.accepted === false ? "rejected" : "accepted";
  if (done.error !== undefined) outcome += ` (${done.error})`;
  // A write its client gave up on that the resource's log shows it applied.
  if (done.f === "write" && done.type === "info" && done.seq !== undefined)
    outcome += `, yet applied by the resource (write #${done.seq})`;
  return `${done.f}${holder === "" ? "" : ` [${holder}]`} → ${outcome}`;
}

export function formatTimeline(
  ops: readonly Op[],
  verdicts: readonly Verdict[],
  o: TimelineOptions = {},
): string[] {
  const c = o.colors ?? colorsFor(process.stdout);
  const maxLines = o.maxLines ?? 60;
  const marks = new Map<number, string[]>();
  for (const v of verdicts) {
    for (const a of v.anomalies) {
      for (const i of a.ops) marks.set(i, [...(marks.get(i) ?? []), a.kind]);
    }
  }
  const open = new Map<ClientId, ClientOp>();
  // Rows are listed by when each call was sent (stable for ties), which reads like a story.
  const rows: { start: number; line: string }[] = [];
  for (const op of ops) {
    if (isNemesisOp(op)) {
      rows.push({
        start: op.time,
        line: `${ms(op.time).padStart(10)}             ${who(op).padEnd(9)} ${c.yellow(describeFault(op))}`,
      });
      continue;
    }
    if (op.type === "invoke") {
      open.set(op.process, op);
      continue;
    }
    const invoke = open.get(op.process);
    open.delete(op.process);
    const cited = [
      ...new Set([...(marks.get(op.index) ?? []), ...(invoke ? (marks.get(invoke.index) ?? []) : [])]),
    ];
    const when = `${ms(invoke?.time ?? op.time).padStart(10)} → ${ms(op.time).padEnd(9)}`;
    let line = `${when} ${who(op).padEnd(9)} ${describeCall(invoke, op)}`;
    if (cited.length > 0) line = `${c.bold(c.red(line))}  ${c.red(`◀ ${cited.join(", ")}`)}`;
    rows.push({ start: invoke?.time ?? op.time, line });
  }
  for (const inv of open.values()) {
    rows.push({
      start: inv.time,
      line: `${ms(inv.time).padStart(10)} → ${"…".padEnd(9)} ${who(inv).padEnd(9)} ${inv.f} (never completed)`,
    });
  }
  const events = rows.sort((a, b) => a.start - b.start).map((r) => r.line);
  let shown = events;
  if (events.length > maxLines) {
    const head = Math.floor(maxLines / 3);
    const tail = maxLines - head;
    shown = [
      ...events.slice(0, head),
      c.dim(`      … ${events.length - maxLines} more …`),
      ...events.slice(-tail),
    ];
  }
  const lines = [
    c.dim(`${"sent (ms)".padStart(10)} → ${"done (ms)".padEnd(9)} ${"who".padEnd(9)} what`),
    ...shown,
  ];
  for (const v of verdicts) {
    for (const a of v.anomalies) {
      const label = a.kind === v.checker ? a.kind : `${v.checker}: ${a.kind}`;
      lines.push("", `${c.bold(c.red(label))}  ${a.explanation}`);
    }
  }
  return lines;
}
