/** The stylesheet inlined into report.html (light theme; prints and screenshots cleanly). */
export const REPORT_CSS = `
:root {
  --ink: #0f172a; --muted: #64748b; --faint: #94a3b8; --line: #e2e8f0; --bg: #f8fafc; --card: #ffffff;
  --red: #dc2626; --red-bg: #fef2f2; --green: #15803d; --green-bg: #f0fdf4; --amber: #b45309; --amber-bg: #fffbeb;
  --blue: #2563eb; --hold: #3b82f6; --hold-ink: #ffffff;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 1480px; margin: 0 auto; padding: 22px 28px 40px; }
code, pre { font-family: var(--mono); font-size: 12.5px; }
h1 { font-size: 22px; margin: 0; font-weight: 650; letter-spacing: -0.01em; }
h2 { font-size: 13px; text-transform: uppercase; letter-spacing: 0.06em; color: var(--muted); margin: 26px 0 10px; font-weight: 650; }
.brand { color: var(--muted); font-size: 12px; letter-spacing: 0.08em; text-transform: uppercase; margin-bottom: 4px; }
.head { display: flex; align-items: center; gap: 14px; flex-wrap: wrap; }
.sub { color: var(--muted); margin: 6px 0 0; }
.sub b { color: var(--ink); font-weight: 600; }
.badge { white-space: nowrap; display: inline-flex; align-items: center; gap: 6px; padding: 3px 11px; border-radius: 999px;
  font-weight: 650; font-size: 13px; border: 1px solid transparent; }
.badge.valid { background: var(--green-bg); color: var(--green); border-color: #bbf7d0; }
.badge.invalid { background: var(--red-bg); color: var(--red); border-color: #fecaca; }
.badge.unknown { background: var(--amber-bg); color: var(--amber); border-color: #fde68a; }
.replay { margin-top: 10px; font-size: 13px; color: var(--muted); }
.replay code { background: #0f172a; color: #e2e8f0; padding: 3px 8px; border-radius: 6px; user-select: all; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(118px, 1fr)); gap: 10px; margin-top: 18px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 10px 14px; }
.card .k { color: var(--muted); font-size: 12px; }
.card .v { font-size: 20px; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .v small { font-size: 12px; color: var(--muted); font-weight: 500; }
.card.bad .v { color: var(--red); }
table.verdicts { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line);
  border-radius: 10px; overflow: hidden; }
table.verdicts th, table.verdicts td { text-align: left; padding: 8px 12px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.verdicts td:nth-child(-n+3) { white-space: nowrap; width: 1%; padding-right: 22px; }
table.verdicts th { font-size: 12px; color: var(--muted); font-weight: 600; background: #f1f5f9; }
table.verdicts tr:last-child td { border-bottom: 0; }
.stat { display: inline-block; margin: 0 10px 2px 0; color: var(--muted); font-size: 12.5px; }
.stat b { color: var(--ink); font-weight: 600; font-variant-numeric: tabular-nums; }
ol.anomalies { list-style: none; margin: 0; padding: 0; display: grid; gap: 8px; }
.anomaly-item { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--red);
  border-radius: 8px; padding: 9px 14px; cursor: pointer; display: grid; grid-template-columns: auto 1fr auto; gap: 12px; align-items: baseline; }
.anomaly-item:hover, .anomaly-item.active { background: var(--red-bg); }
.anomaly-item .n { font-weight: 700; color: var(--red); font-variant-numeric: tabular-nums; }
.anomaly-item .kind { font-weight: 650; }
.anomaly-item .by { color: var(--muted); font-size: 12px; }
.anomaly-item .go { color: var(--blue); font-size: 12.5px; white-space: nowrap; }
.anomaly-item.possible { border-left-color: #f59e0b; }
.anomaly-item.possible .n { color: var(--amber); }
.none { color: var(--muted); }
#timeline { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 0; overflow: hidden; }
.toolbar { display: flex; align-items: center; gap: 8px; padding: 8px 12px; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
.toolbar button { font: inherit; font-size: 13px; padding: 3px 10px; border: 1px solid #cbd5e1; background: #fff; border-radius: 6px; cursor: pointer; color: var(--ink); }
.toolbar button:hover { background: #f1f5f9; }
.toolbar .range { font-variant-numeric: tabular-nums; color: var(--ink); font-size: 12.5px; margin-left: 6px; }
.toolbar .cursor { font-variant-numeric: tabular-nums; color: var(--muted); font-size: 12.5px; min-width: 120px; }
.toolbar .hint { margin-left: auto; color: var(--faint); font-size: 12px; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; padding: 7px 12px; border-bottom: 1px solid var(--line); font-size: 12px; color: var(--muted); }
.legend span { display: inline-flex; align-items: center; gap: 6px; }
.legend svg { overflow: visible; }
#tl-wrap { position: relative; width: 100%; }
#tl-svg { display: block; user-select: none; cursor: grab; font-size: 11px; }
#tl-svg.dragging { cursor: grabbing; }
.lane-bg { fill: #ffffff; }
.lane-bg.odd { fill: #f8fafc; }
.lane-server .lane-bg { fill: #f5f3ff; }
.lane-server .lane-bg.odd { fill: #ede9fe; opacity: .7; }
.lane-resource .lane-bg { fill: #ecfeff; }
.lane-label { font-size: 12.5px; font-weight: 600; fill: #334155; }
.lane-server .lane-label, .lane-resource .lane-label, .lane-other .lane-label { font-weight: 500; fill: #6d28d9; }
.band-label { font-size: 11px; fill: var(--red); font-weight: 600; text-transform: uppercase; letter-spacing: .05em; }
.gutter-rule { stroke: #cbd5e1; }
.axis-bg { fill: #f1f5f9; }
.axis-unit { font-size: 11px; fill: var(--muted); text-transform: uppercase; letter-spacing: .05em; }
.tick { font-size: 11px; fill: #475569; text-anchor: middle; font-variant-numeric: tabular-nums; }
.grid { stroke: #e2e8f0; stroke-width: 1; }
.cursor-line { stroke: #0f172a; stroke-opacity: .28; stroke-dasharray: 3 3; pointer-events: none; }
.fault rect { stroke-width: 0; }
.fault text { font-size: 10.5px; font-weight: 600; pointer-events: none; }
.fault.pause rect { fill: url(#hatch-pause); opacity: .9; }
.fault.pause text { fill: #92400e; }
.fault.crash rect { fill: url(#hatch-crash); }
.fault.crash text { fill: #1f2937; }
.fault.partition rect { fill: #fee2e2; opacity: .85; stroke: #fca5a5; stroke-width: 1; }
.fault.partition text { fill: #b91c1c; }
.fault.delay rect { fill: #ede9fe; stroke: #c4b5fd; stroke-width: 1; }
.fault.delay text { fill: #6d28d9; }
.fault.clock-drift rect { fill: #dbeafe; opacity: .7; }
.fault.clock-drift text { fill: #1d4ed8; }
.fault.clock-jump line { stroke: #1d4ed8; stroke-width: 2; }
.fault.clock-jump path { fill: #1d4ed8; }
.fault.clock-jump text { fill: #1d4ed8; }
.hold .bar { fill: var(--hold); }
.hold .past-ttl { fill: url(#hatch-ttl); }
.hold.release-none .bar { fill: #60a5fa; }
.hold .end-cap { fill: #b91c1c; }
.hold text { fill: var(--hold-ink); font-size: 11px; font-weight: 650; pointer-events: none; font-variant-numeric: tabular-nums; }
.hold.flagged .bar { stroke: var(--red); stroke-width: 1.5; }
.hold:hover .bar { fill: #1d4ed8; }
.attempt line { stroke: #94a3b8; stroke-width: 1.5; }
.attempt.info line, .attempt.pending line { stroke: #d97706; stroke-dasharray: 3 2; }
.attempts { fill: none; stroke: #94a3b8; stroke-width: 1.5; }
.attempts.info, .attempts.pending { stroke: #d97706; }
.holds { fill: var(--hold); }
.holds.past-ttl { fill: url(#hatch-ttl); }
.write-dots { fill: none; stroke-linecap: round; stroke-width: 8; }
.write-dots.accepted { stroke: #16a34a; }
.write-dots.rejected { stroke: #ea580c; }
.write-dots.uncertain { stroke: #7c3aed; }
.write-dots.failed { stroke: #64748b; }
.hover-ring { fill: none; stroke: #0f172a; stroke-width: 2; pointer-events: none; }
.write .span { stroke: #334155; stroke-opacity: .35; stroke-width: 1.2; }
.write .mark { stroke-width: 1.6; }
.write.accepted .mark { fill: #16a34a; stroke: #ffffff; }
.write.rejected .mark { fill: #ffffff; stroke: #ea580c; }
.write.rejected .slash { stroke: #ea580c; stroke-width: 1.6; }
.write.uncertain .mark { fill: #ffffff; stroke: #7c3aed; stroke-dasharray: 2 1.5; }
.write.uncertain text { fill: #7c3aed; font-size: 8px; font-weight: 800; text-anchor: middle; pointer-events: none; }
.write.failed .mark { fill: none; stroke: #64748b; stroke-width: 1.8; }
.write.flagged.accepted .mark { fill: var(--red); }
.write .ring { fill: none; stroke: var(--red); stroke-width: 2; }
.write:hover .mark { stroke: #0f172a; }
.anomaly-link { fill: none; stroke: var(--red); stroke-width: 2; }
.anomaly-link:hover { stroke-width: 3.5; }
.anomaly-end { fill: var(--red); pointer-events: none; }
.anomaly-label rect { fill: var(--red); }
.anomaly-label text { fill: #fff; font-size: 11px; font-weight: 600; pointer-events: none; }
.anomaly-label .leader { stroke: var(--red); stroke-width: 1; stroke-dasharray: 2 2; }
.anomaly-label:hover rect { fill: #991b1b; }
.tooltip { position: fixed; z-index: 10; max-width: min(640px, 92vw); background: #0f172a; color: #e2e8f0; border-radius: 8px;
  padding: 10px 12px; box-shadow: 0 10px 30px rgba(15, 23, 42, .25); pointer-events: none; font-size: 12.5px; }
.tooltip .tip-title { font-weight: 650; color: #fff; margin-bottom: 4px; }
.tooltip table { border-collapse: collapse; }
.tooltip th { text-align: left; color: #94a3b8; font-weight: 500; padding: 1px 12px 1px 0; }
.tooltip td { font-variant-numeric: tabular-nums; }
.tooltip td.expl { color: #e2e8f0; max-width: 600px; }
.tooltip .tip-ops { margin-top: 6px; display: grid; gap: 3px; }
.tooltip code { display: block; color: #a5f3fc; font-size: 11.5px; white-space: pre-wrap; word-break: break-all; }
details { margin-top: 22px; background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 8px 14px; }
details.more { margin-top: 8px; background: transparent; border: 0; padding: 0; }
details.more ol { margin-top: 8px; }
details summary { cursor: pointer; color: var(--muted); font-weight: 600; }
details pre { overflow: auto; max-height: 420px; }
footer { margin-top: 26px; color: var(--faint); font-size: 12px; }
noscript p { padding: 12px; color: var(--amber); }
`;
