/**
 * The gate's console output: one table of targets (where they ran, runs, violations, time,
 * expectation met) and one of corpus entries, then a line per unmet expectation with what to
 * run next.
 */

import type { Colors } from "./colors.js";
import { failureText, type GateReport, type GateResult } from "./gate-result.js";
import { formatDuration } from "./progress.js";

type Cell = { text: string; style?: (s: string) => string; right?: boolean };

function table(header: string[], rows: Cell[][], c: Colors): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.text.length ?? 0)));
  const line = (cells: Cell[]) =>
    cells
      .map((cell, i) => {
        const w = widths[i] ?? 0;
        const padded = cell.right ? cell.text.padStart(w) : cell.text.padEnd(w);
        return cell.style ? cell.style(padded) : padded;
      })
      .join("  ")
      .trimEnd();
  return [c.dim(line(header.map((h) => ({ text: h })))), ...rows.map(line)];
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)}s` : formatDuration(ms / 1000);
}

function resultCell(r: GateResult, c: Colors): Cell {
  if (r.met) return { text: "✓ met", style: c.green };
  return {
    text: r.error !== undefined && !(r.kind === "target" && r.counterexample) ? "✗ error" : "✗ unmet",
    style: (s) => c.bold(c.red(s)),
  };
}

export function formatGateReport(report: GateReport, c: Colors): string[] {
  const out: string[] = [];
  const targets = report.results.filter((r) => r.kind === "target");
  const corpus = report.results.filter((r) => r.kind === "corpus");
  if (report.shard) out.push(c.dim(`shard ${report.shard.index}/${report.shard.count}`));
  if (targets.length > 0) {
    out.push(c.bold("targets"));
    out.push(
      ...table(
        ["target", "on", "expect", "runs", "violations", "time", "result"],
        targets.map((r) => [
          { text: r.name },
          { text: r.ranOn ?? "–" },
          { text: r.expect },
          { text: String(r.runs), right: true },
          { text: String(r.violations), right: true, ...(r.violations > 0 ? { style: c.red } : {}) },
          { text: seconds(r.elapsedMs), right: true },
          resultCell(r, c),
        ]),
        c,
      ),
    );
  }
  if (corpus.length > 0) {
    if (out.length > 0) out.push("");
    out.push(c.bold("corpus"));
    out.push(
      ...table(
        ["entry", "mode", "on", "time", "result"],
        corpus.map((r) => [
          { text: r.name },
          { text: r.mode },
          { text: r.ranOn ?? "–" },
          { text: seconds(r.elapsedMs), right: true },
          resultCell(r, c),
        ]),
        c,
      ),
    );
  }
  // A safe verdict of a target whose library ended its own clients tested less than it says.
  for (const r of targets) {
    const k = r.libraryCrashes;
    if (k === undefined) continue;
    out.push(
      `${c.yellow("!")} ${c.bold(r.name)}: your library ended ${k.clients} client process${k.clients === 1 ? "" : "es"} in ${k.runs} of ${r.runs} runs (it threw outside a call); the rest of their workload was not tested. First: ${k.first.split("\n")[0]}`,
    );
  }
  const unmet = report.results.filter((r) => !r.met);
  if (unmet.length > 0) {
    out.push("");
    for (const r of unmet) {
      const f = failureText(r);
      out.push(`${c.red("✗")} ${c.bold(r.name)}: ${f.message}`);
      for (const l of f.details.split("\n").slice(1)) out.push(`    ${l}`);
    }
  }
  const met = report.results.length - unmet.length;
  out.push("");
  out.push(
    unmet.length === 0
      ? c.green(
          `gate passed: ${met} of ${report.results.length} expectations met in ${seconds(report.elapsedMs)}`,
        )
      : c.bold(c.red(`gate failed: ${unmet.length} of ${report.results.length} expectations unmet`)),
  );
  return out;
}
