/**
 * The HTML report: one self-contained file (inline CSS, JS and data; no network) that opens
 * from disk. On top, a summary of the verdicts and the run; below, the timeline — one lane
 * per client and per server node, time on the x axis, lock holds as bars labelled with their
 * tokens, writes as marks (accepted / rejected / uncertain), faults as shaded bands, and each
 * anomaly as a red link between the two conflicting writes with a one-line explanation.
 *
 * The output depends only on the input (no dates, no randomness), so a saved counterexample's
 * report is reproducible.
 */
import { combineValidity, type StatValue, type Validity, type Verdict } from "../checkers/verdict.js";
import type { Op } from "../history/op.js";
import type { Schedule } from "../schedule/schedule.js";
import { reportScript, reportStyle } from "./html-assets.js";
import { buildTimeline, type Timeline } from "./timeline.js";

export interface HtmlReportInput {
  ops: readonly Op[];
  verdicts: readonly Verdict[];
  schedule?: Schedule | undefined;
  title?: string | undefined;
  /** Shown in the summary, e.g. "lockcheck replay lockcheck-out/fuzz-7/run-42". */
  replayCommand?: string | undefined;
  /** The lock renews its lease while held (TimelineInput.renews). */
  renews?: boolean | undefined;
}

export function renderHtmlReport(input: HtmlReportInput): string {
  const timeline = buildTimeline(input);
  const title = input.title ?? defaultTitle(input.schedule);
  const data = { timeline, ops: input.ops };
  return [
    "<!doctype html>",
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Opened from disk, the report must not reach the network: forbid it outright.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(title)} — lockcheck</title>`,
    `<style>\n${reportStyle()}</style>`,
    "</head><body><main>",
    renderSummary(input, timeline, title),
    renderTimelineShell(),
    renderScheduleDetails(input.schedule),
    "<footer>lockcheck report · hover any mark for the full ops · wheel to zoom, drag to pan, double-click to fit</footer>",
    "</main>",
    '<div id="tl-tip" class="tooltip" hidden></div>',
    `<script type="application/json" id="lockcheck-data">${jsonForScript(data)}</script>`,
    `<script>\n${reportScript()}</script>`,
    "</body></html>",
    "",
  ].join("\n");
}

function defaultTitle(schedule: Schedule | undefined): string {
  return schedule ? `${schedule.target} · schedule seed ${schedule.seed}` : "history";
}

/** JSON that is safe inside a <script> element: BigInts as strings, no "</script>". */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? v.toString() : v))
    .replace(/</g, "\\u003c")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const VALIDITY_TEXT: Record<string, { cls: string; text: string }> = {
  true: { cls: "valid", text: "✓ valid" },
  false: { cls: "invalid", text: "✗ violation" },
  unknown: { cls: "unknown", text: "? unknown" },
};

function badge(v: Validity): string {
  const b = VALIDITY_TEXT[String(v)] ?? { cls: "unknown", text: String(v) };
  return `<span class="badge ${b.cls}">${b.text}</span>`;
}

function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(ms >= 10_000 ? 1 : 2)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${Number(ms.toFixed(3))} ms`;
}

function renderSummary(input: HtmlReportInput, tl: Timeline, title: string): string {
  const overall = combineValidity(input.verdicts.map((v) => v.valid));
  const anomalyCount = tl.anomalies.length;
  const s = input.schedule;
  const facts: string[] = [];
  if (s) {
    facts.push(
      `target <b>${escapeHtml(s.target)}</b>`,
      // Not the fuzz campaign's --seed (the run folder's name carries that): the schedule's own.
      `<span title="the seed in schedule.json: the simulator's random draws (latencies, election timeouts); not the --seed of the fuzz campaign that found it">schedule seed <b>${s.seed}</b></span>`,
      `resource <b>${s.resource}</b>`,
    );
    facts.push(
      `<b>${s.clients.length}</b> clients`,
      `<b>${s.options.servers}</b> server${s.options.servers === 1 ? "" : "s"}`,
    );
    facts.push(
      `ttl <b>${s.options.ttlMs} ms</b>`,
      `<b>${s.faults.length}</b> scheduled fault${s.faults.length === 1 ? "" : "s"}`,
    );
  } else {
    facts.push(`<b>${tl.stats.clients}</b> clients`, "no schedule (history only)");
  }
  const anomalyNote =
    input.verdicts.length === 0
      ? "not checked"
      : `${anomalyCount} ${anomalyCount === 1 ? "anomaly" : "anomalies"}`;
  const w = tl.stats.writes;
  const cards = [
    card("history", `${tl.stats.ops}<small> ops</small>`),
    card("duration", formatMs(tl.stats.durationMs)),
    card("grants", `${tl.stats.grants}<small> of ${tl.stats.acquireAttempts} acquires</small>`),
    card("writes accepted", String(w.accepted)),
    card("writes rejected", String(w.rejected)),
    card("writes uncertain", `${w.uncertain}${w.failed ? `<small> · ${w.failed} failed</small>` : ""}`),
    card("faults", String(tl.stats.faults)),
    card("anomalies", String(anomalyCount), anomalyCount > 0),
  ];
  return [
    "<header>",
    '<div class="brand">lockcheck report</div>',
    `<div class="head"><h1>${escapeHtml(title)}</h1>${input.verdicts.length ? badge(overall) : ""}<span class="sub">${anomalyNote}</span></div>`,
    `<p class="sub">${facts.join(" · ")}</p>`,
    input.replayCommand
      ? `<div class="replay">replay: <code>${escapeHtml(input.replayCommand)}</code></div>`
      : "",
    "</header>",
    `<section class="cards">${cards.join("")}</section>`,
    renderVerdictTable(input.verdicts),
    renderAnomalyList(tl),
  ].join("\n");
}

function card(k: string, v: string, bad = false): string {
  return `<div class="card${bad ? " bad" : ""}"><div class="k">${escapeHtml(k)}</div><div class="v">${v}</div></div>`;
}

function renderVerdictTable(verdicts: readonly Verdict[]): string {
  if (verdicts.length === 0) return '<h2>Checkers</h2><p class="none">No checker verdicts were given.</p>';
  const rows = verdicts.map((v) => {
    const stats = Object.entries(v.stats)
      .map(([k, val]) => `<span class="stat">${escapeHtml(k)} <b>${escapeHtml(formatStat(val))}</b></span>`)
      .join("");
    return `<tr><td><b>${escapeHtml(v.checker)}</b></td><td>${badge(v.valid)}</td><td>${v.anomalies.length}</td><td>${stats || '<span class="none">—</span>'}</td></tr>`;
  });
  return [
    "<h2>Checkers</h2>",
    '<table class="verdicts"><thead><tr><th>checker</th><th>verdict</th><th>anomalies</th><th>stats</th></tr></thead>',
    `<tbody>${rows.join("")}</tbody></table>`,
  ].join("\n");
}

function formatStat(v: StatValue): string {
  if (typeof v === "number" && !Number.isInteger(v)) return String(Number(v.toPrecision(4)));
  return String(v);
}

/** Anomalies listed in full above the timeline; the rest fold away. */
const SHOWN_ANOMALIES = 6;

function renderAnomalyList(tl: Timeline): string {
  if (tl.anomalies.length === 0) return "";
  const items = tl.anomalies.map(
    (a, i) =>
      `<li class="anomaly-item${a.kind.startsWith("possible") ? " possible" : ""}" data-anomaly="${i}">` +
      `<span class="n">#${a.n}</span>` +
      `<span><span class="kind">${escapeHtml(a.kind)}</span> <span class="by">by ${escapeHtml(a.checker)} · ops ${a.ops.join(", ")}</span><br>${escapeHtml(a.explanation)}</span>` +
      `<span class="go">show on timeline →</span></li>`,
  );
  if (items.length <= SHOWN_ANOMALIES)
    return `<h2>Anomalies</h2><ol class="anomalies">${items.join("")}</ol>`;
  return [
    `<h2>Anomalies</h2><ol class="anomalies">${items.slice(0, SHOWN_ANOMALIES).join("")}</ol>`,
    `<details class="more"><summary>${items.length - SHOWN_ANOMALIES} more anomalies</summary>`,
    `<ol class="anomalies">${items.slice(SHOWN_ANOMALIES).join("")}</ol></details>`,
  ].join("");
}

function legendSwatch(svg: string, text: string): string {
  return `<span><svg width="22" height="14" viewBox="0 0 22 14">${svg}</svg>${escapeHtml(text)}</span>`;
}

function renderTimelineShell(): string {
  const legend = [
    legendSwatch('<rect x="1" y="2" width="20" height="10" rx="2" fill="#3b82f6"/>', "lock held (token)"),
    legendSwatch(
      '<rect x="1" y="2" width="20" height="10" rx="2" fill="#93c5fd"/><rect x="11" y="2" width="10" height="10" fill="#1d4ed8" opacity=".5"/>',
      "held past its ttl",
    ),
    legendSwatch(
      '<line x1="2" y1="7" x2="20" y2="7" stroke="#94a3b8" stroke-width="1.5"/>',
      "acquire denied",
    ),
    legendSwatch('<circle cx="11" cy="7" r="4.5" fill="#16a34a"/>', "write accepted"),
    legendSwatch(
      '<circle cx="11" cy="7" r="4.5" fill="#fff" stroke="#ea580c" stroke-width="1.6"/><line x1="8" y1="10" x2="14" y2="4" stroke="#ea580c" stroke-width="1.6"/>',
      "write rejected (fenced)",
    ),
    legendSwatch(
      '<circle cx="11" cy="7" r="4.5" fill="#fff" stroke="#7c3aed" stroke-width="1.6" stroke-dasharray="2 1.5"/>',
      "write uncertain",
    ),
    legendSwatch('<rect x="1" y="1" width="20" height="12" fill="#fde68a"/>', "pause"),
    legendSwatch('<rect x="1" y="1" width="20" height="12" fill="#fee2e2" stroke="#fca5a5"/>', "partition"),
    legendSwatch('<rect x="1" y="1" width="20" height="12" fill="#d1d5db"/>', "crash"),
    legendSwatch('<rect x="1" y="1" width="20" height="12" fill="#ede9fe" stroke="#c4b5fd"/>', "delay"),
    legendSwatch('<line x1="11" y1="1" x2="11" y2="13" stroke="#1d4ed8" stroke-width="2"/>', "clock jump"),
    legendSwatch(
      '<path d="M2,11 C2,1 20,1 20,9" fill="none" stroke="#dc2626" stroke-width="2"/><circle cx="20" cy="11" r="2.5" fill="#dc2626"/>',
      "anomaly: newer write → stale write",
    ),
  ];
  return [
    "<h2>Timeline</h2>",
    '<section id="timeline">',
    '<div class="toolbar"><button id="tl-fit" type="button">Fit</button><button id="tl-out" type="button">−</button><button id="tl-in" type="button">+</button>',
    '<span class="range" id="tl-range"></span><span class="cursor" id="tl-cursor"></span>',
    '<span class="hint">wheel: zoom · shift+wheel or drag: pan · double-click: fit · hover: details</span></div>',
    `<div class="legend">${legend.join("")}</div>`,
    '<div id="tl-wrap"><svg id="tl-svg" xmlns="http://www.w3.org/2000/svg" width="1000" height="200"></svg></div>',
    "<noscript><p>The timeline needs JavaScript; the summary above does not.</p></noscript>",
    "</section>",
  ].join("\n");
}

function renderScheduleDetails(schedule: Schedule | undefined): string {
  if (!schedule) return "";
  return `<details><summary>Schedule (the input to replay)</summary><pre>${escapeHtml(JSON.stringify(schedule, null, 2))}</pre></details>`;
}
