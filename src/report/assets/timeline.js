(() => {
  "use strict";
  const data = JSON.parse(document.getElementById("lockcheck-data").textContent);
  const tl = data.timeline;
  const opsByIndex = new Map();
  for (const o of data.ops) opsByIndex.set(o.index, o);

  const GUTTER = 118;
  const PAD_R = 18;
  const AXIS_H = 26;
  const ROW_H = 20;
  const MAX_LABEL_ROWS = 4;
  const LANE_H = { client: 46, server: 30, resource: 30, other: 30 };

  const svg = document.getElementById("tl-svg");
  const wrap = document.getElementById("tl-wrap");
  const tip = document.getElementById("tl-tip");
  const cursorText = document.getElementById("tl-cursor");
  const labelRows = Math.min(MAX_LABEL_ROWS, tl.anomalies.length);
  const BAND_H = labelRows > 0 ? labelRows * ROW_H + 8 : 0;
  const TOP = AXIS_H + BAND_H;

  const laneY = new Map();
  let y = TOP;
  for (const lane of tl.lanes) {
    const h = LANE_H[lane.kind] || 30;
    laneY.set(lane.id, { top: y, h: h, mid: y + h / 2 });
    y += h;
  }
  const HEIGHT = y + 12;

  const span0 = Math.max(tl.endMs - tl.startMs, 1);
  const full = { t0: tl.startMs - span0 * 0.01, t1: tl.endMs + span0 * 0.02 };
  let view = { t0: full.t0, t1: full.t1 };
  let width = 800;

  const esc = (s) =>
    String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const plotW = () => Math.max(120, width - GUTTER - PAD_R);
  const xOf = (t) => GUTTER + ((t - view.t0) / (view.t1 - view.t0)) * plotW();
  const tOf = (x) => view.t0 + ((x - GUTTER) / plotW()) * (view.t1 - view.t0);
  const r1 = (v) => Math.round(v * 10) / 10;

  function niceStep(raw) {
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const n = raw / p;
    return (n < 1.5 ? 1 : n < 3.5 ? 2 : n < 7.5 ? 5 : 10) * p;
  }
  function fmtTime(ms, step) {
    if (step >= 1000) {
      const d = Math.max(0, -Math.floor(Math.log10(step / 1000)));
      return (ms / 1000).toFixed(d) + " s";
    }
    if (step < 1) {
      const d = Math.max(0, -Math.floor(Math.log10(step * 1000)));
      return (ms * 1000).toFixed(d) + " µs";
    }
    const d = Math.max(0, -Math.floor(Math.log10(step)));
    return ms.toFixed(d) + " ms";
  }
  function fmtMs(ms) {
    if (Math.abs(ms) >= 1000) return (ms / 1000).toFixed(3).replace(/\.?0+$/, "") + " s";
    return (Math.round(ms * 1000) / 1000).toString() + " ms";
  }

  // ---- static layer: defs, lane backgrounds and labels --------------------------------
  svg.setAttribute("height", String(HEIGHT));
  let stat = "";
  stat +=
    '<defs>' +
    '<pattern id="hatch-pause" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fef3c7"/><line x1="0" y1="0" x2="0" y2="6" stroke="#f59e0b" stroke-width="2.2" opacity=".55"/></pattern>' +
    '<pattern id="hatch-crash" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(-45)"><rect width="6" height="6" fill="#e5e7eb"/><line x1="0" y1="0" x2="0" y2="6" stroke="#4b5563" stroke-width="2" opacity=".6"/></pattern>' +
    '<pattern id="hatch-ttl" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="5" height="5" fill="#93c5fd"/><line x1="0" y1="0" x2="0" y2="5" stroke="#1d4ed8" stroke-width="1.6" opacity=".55"/></pattern>' +
    '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#dc2626"/></marker>' +
    '<clipPath id="plot-clip"><rect id="plot-clip-rect" x="' + GUTTER + '" y="0" width="100" height="' + HEIGHT + '"/></clipPath>' +
    "</defs>";
  stat += '<g id="tl-lanes">';
  tl.lanes.forEach((lane, i) => {
    const ly = laneY.get(lane.id);
    stat +=
      '<g class="lane lane-' + lane.kind + '" data-lane="' + esc(lane.id) + '">' +
      '<rect class="lane-bg' + (i % 2 ? " odd" : "") + '" x="0" y="' + ly.top + '" width="100%" height="' + ly.h + '"/>' +
      '<text class="lane-label" x="12" y="' + (ly.mid + 4) + '">' + esc(lane.label) + "</text>" +
      "</g>";
  });
  stat += "</g>";
  stat += '<line class="gutter-rule" x1="' + GUTTER + '" x2="' + GUTTER + '" y1="' + AXIS_H + '" y2="' + (HEIGHT - 12) + '"/>';
  if (BAND_H > 0) {
    stat += '<text class="band-label" x="12" y="' + (AXIS_H + BAND_H / 2 + 4) + '">anomalies</text>';
  }
  stat += '<g id="tl-axis"></g>';
  stat += '<g clip-path="url(#plot-clip)"><g id="tl-items"></g><g id="tl-links"></g></g>';
  stat += '<line id="tl-cursor-line" class="cursor-line" y1="' + AXIS_H + '" y2="' + (HEIGHT - 12) + '" x1="-10" x2="-10"/>';
  svg.innerHTML = stat;
  const axisG = document.getElementById("tl-axis");
  const itemsG = document.getElementById("tl-items");
  const linksG = document.getElementById("tl-links");
  const clipRect = document.getElementById("plot-clip-rect");
  const cursorLine = document.getElementById("tl-cursor-line");

  // Writes and acquires that anomalies point at, to ring them in red.
  const flagged = new Set();
  for (const a of tl.anomalies) for (const i of a.ops) flagged.add(i);
  const isFlagged = (item) => item.ops.some((i) => flagged.has(i));

  // ---- per-view drawing ----------------------------------------------------------------
  function drawAxis() {
    const step = niceStep((view.t1 - view.t0) / Math.max(2, plotW() / 110));
    let s = '<rect class="axis-bg" x="0" y="0" width="' + width + '" height="' + AXIS_H + '"/>';
    s += '<text class="axis-unit" x="12" y="17">time</text>';
    const first = Math.ceil(view.t0 / step) * step;
    for (let t = first; t <= view.t1; t += step) {
      const x = r1(xOf(t));
      if (x < GUTTER - 0.5) continue;
      s += '<line class="grid" x1="' + x + '" x2="' + x + '" y1="' + (AXIS_H - 5) + '" y2="' + (HEIGHT - 12) + '"/>';
      s += '<text class="tick" x="' + x + '" y="15">' + fmtTime(Math.abs(t) < step / 1e6 ? 0 : t, step) + "</text>";
    }
    axisG.innerHTML = s;
  }

  const visible = (a, b) => b >= view.t0 && a <= view.t1;

  // Above these many items in view, items of one kind are drawn as one path per lane (no
  // labels), so a frame costs the same with 100 or 100 000 ops; hover still finds each op.
  const DENSE_WRITES = 700;
  const DENSE_BARS = 350;
  const drawn = { writes: 0, denseWrites: false, denseHolds: false };

  function faultSvg(f, i, out, clampX) {
    const xa = clampX(xOf(f.start));
    const xb = clampX(xOf(f.end));
    for (const laneId of f.lanes) {
      const ly = laneY.get(laneId);
      if (!ly) continue;
      if (f.kind === "clock-jump") {
        const x = r1(xa);
        out.push(
          '<g class="fault clock-jump" data-k="f' + i + '">' +
          '<line x1="' + x + '" x2="' + x + '" y1="' + (ly.top + 2) + '" y2="' + (ly.top + ly.h - 2) + '"/>' +
          '<path d="M' + (x - 4) + "," + (ly.top + 2) + " h8 l-4,5 z" + '"/>' +
          '<text x="' + (x + 5) + '" y="' + (ly.top + ly.h - 5) + '">' + esc(f.label) + "</text></g>",
        );
        continue;
      }
      const w = Math.max(2, xb - xa);
      out.push(
        '<g class="fault ' + f.kind + (f.open ? " open" : "") + '" data-k="f' + i + '">' +
        '<rect x="' + r1(xa) + '" y="' + (ly.top + 1) + '" width="' + r1(w) + '" height="' + (ly.h - 2) + '"/>' +
        (w > 54
          ? '<text x="' + r1(Math.max(xa, GUTTER) + 4) + '" y="' + (ly.top + 10) + '">' + esc(f.label) + "</text>"
          : "") +
        "</g>",
      );
    }
  }

  function holdSvg(h, i, clampX) {
    const ly = laneY.get(h.lane);
    const xa = clampX(xOf(h.start));
    const xb = clampX(xOf(h.end));
    const w = Math.max(2, xb - xa);
    const top = ly.mid - 11;
    let s = '<g class="hold release-' + h.release + (isFlagged(h) ? " flagged" : "") + '" data-k="h' + i + '">';
    s += '<rect class="bar" x="' + r1(xa) + '" y="' + top + '" width="' + r1(w) + '" height="18" rx="3"/>';
    if (h.ttlEnd !== null && h.ttlEnd < h.end) {
      const xt = clampX(xOf(Math.max(h.ttlEnd, h.start)));
      if (xb - xt > 1) {
        s += '<rect class="past-ttl" x="' + r1(xt) + '" y="' + top + '" width="' + r1(xb - xt) + '" height="18" rx="3"/>';
      }
    }
    if (h.release === "fail" || h.release === "info") {
      s += '<rect class="end-cap" x="' + r1(xb - 3) + '" y="' + top + '" width="3" height="18"/>';
    }
    const label = h.token !== null ? "token " + h.token : "grant " + h.grant;
    const short = h.token !== null ? h.token : h.grant;
    const visW = Math.min(xb, width) - Math.max(xa, GUTTER);
    const lx = r1(Math.max(xa, GUTTER) + 5);
    if (visW > label.length * 6.4 + 12) s += '<text x="' + lx + '" y="' + (top + 13) + '">' + esc(label) + "</text>";
    else if (visW > String(short).length * 6.4 + 8) s += '<text x="' + lx + '" y="' + (top + 13) + '">' + esc(short) + "</text>";
    return s + "</g>";
  }

  function writeSvg(w, i, clampX) {
    const ly = laneY.get(w.lane);
    const xa = xOf(w.start);
    const x = r1(xOf(w.time));
    const yy = ly.mid + 13;
    const flag = isFlagged(w);
    let s = '<g class="write ' + w.status + (flag ? " flagged" : "") + '" data-k="w' + i + '">';
    if (x - xa > 3) s += '<line class="span" x1="' + r1(clampX(xa)) + '" x2="' + x + '" y1="' + yy + '" y2="' + yy + '"/>';
    if (flag) s += '<circle class="ring" cx="' + x + '" cy="' + yy + '" r="8"/>';
    if (w.status === "accepted") s += '<circle class="mark" cx="' + x + '" cy="' + yy + '" r="4.5"/>';
    else if (w.status === "rejected")
      s +=
        '<circle class="mark" cx="' + x + '" cy="' + yy + '" r="4.5"/>' +
        '<line class="slash" x1="' + (x - 3.2) + '" y1="' + (yy + 3.2) + '" x2="' + (x + 3.2) + '" y2="' + (yy - 3.2) + '"/>';
    else if (w.status === "uncertain") s += '<circle class="mark" cx="' + x + '" cy="' + yy + '" r="4.5"/><text x="' + x + '" y="' + (yy + 3) + '">?</text>';
    else s += '<path class="mark" d="M' + (x - 3.5) + "," + (yy - 3.5) + " l7,7 m0,-7 l-7,7" + '"/>';
    return s + "</g>";
  }

  /** Appends "M x y ..." for one dot or bar to the path of key, skipping repeats of a pixel. */
  function addTo(paths, key, cls, x, d) {
    let p = paths.get(key);
    if (!p) {
      p = { cls: cls, d: [], lastX: -1e9 };
      paths.set(key, p);
    }
    if (x - p.lastX < 0.5) return;
    p.lastX = x;
    p.d.push(d);
  }

  function drawItems() {
    const out = [];
    const x0 = GUTTER - 50;
    const x1 = width + 50;
    const clampX = (x) => Math.max(x0, Math.min(x1, x));

    tl.faults.forEach((f, i) => {
      if (visible(f.start, f.end)) faultSvg(f, i, out, clampX);
    });

    const attempts = [];
    tl.attempts.forEach((a, i) => {
      if (visible(a.start, a.end)) attempts.push(i);
    });
    const dense = new Map();
    const denseAttempts = attempts.length > DENSE_BARS;
    for (const i of attempts) {
      const a = tl.attempts[i];
      const ly = laneY.get(a.lane);
      const xa = clampX(xOf(a.start));
      const xb = Math.max(clampX(xOf(a.end)), xa + 1);
      const yy = ly.mid - 2;
      if (denseAttempts) {
        addTo(dense, "t" + a.lane + a.outcome, "attempts " + a.outcome, xa, "M" + r1(xa) + "," + yy + "H" + r1(xb));
        continue;
      }
      out.push(
        '<g class="attempt ' + a.outcome + '" data-k="t' + i + '">' +
        '<line x1="' + r1(xa) + '" x2="' + r1(xb) + '" y1="' + yy + '" y2="' + yy + '"/>' +
        '<line x1="' + r1(xb) + '" x2="' + r1(xb) + '" y1="' + (yy - 4) + '" y2="' + (yy + 4) + '"/></g>',
      );
    }

    let holdCount = 0;
    for (const h of tl.holds) if (visible(h.start, h.end)) holdCount++;
    drawn.denseHolds = holdCount > DENSE_BARS;
    tl.holds.forEach((h, i) => {
      if (!visible(h.start, h.end)) return;
      if (!drawn.denseHolds || isFlagged(h)) {
        out.push(holdSvg(h, i, clampX));
        return;
      }
      const ly = laneY.get(h.lane);
      const xa = clampX(xOf(h.start));
      const xb = Math.max(clampX(xOf(h.end)), xa + 1);
      const top = ly.mid - 11;
      addTo(dense, "h" + h.lane, "holds", xa, "M" + r1(xa) + "," + top + "h" + r1(xb - xa) + "v18h" + r1(xa - xb) + "z");
      if (h.ttlEnd !== null && h.ttlEnd < h.end) {
        const xt = clampX(xOf(Math.max(h.ttlEnd, h.start)));
        if (xb - xt > 1) addTo(dense, "p" + h.lane, "holds past-ttl", xt, "M" + r1(xt) + "," + top + "h" + r1(xb - xt) + "v18h" + r1(xt - xb) + "z");
      }
    });

    let writeCount = 0;
    for (const w of tl.writes) if (visible(w.start, w.time)) writeCount++;
    drawn.denseWrites = writeCount > DENSE_WRITES;
    drawn.writes = 0;
    const flaggedWrites = [];
    tl.writes.forEach((w, i) => {
      if (!visible(w.start, w.time)) return;
      if (isFlagged(w)) {
        flaggedWrites.push(i);
        return;
      }
      if (!drawn.denseWrites) {
        out.push(writeSvg(w, i, clampX));
        drawn.writes++;
        return;
      }
      const x = r1(xOf(w.time));
      addTo(dense, "w" + w.lane + w.status, "write-dots " + w.status, x, "M" + x + "," + (laneY.get(w.lane).mid + 13) + "h0");
    });
    for (const p of dense.values()) out.push('<path class="' + p.cls + '" d="' + p.d.join("") + '"/>');
    // Writes that anomalies point at are always drawn one by one, on top.
    for (const i of flaggedWrites) {
      out.push(writeSvg(tl.writes[i], i, clampX));
      drawn.writes++;
    }
    itemsG.innerHTML = out.join("");
  }

  function drawLinks() {
    // Labels go in the band above the lanes, in the first row where they do not overlap.
    const rowsEnd = [];
    const out = [];
    const labels = [];
    tl.anomalies.forEach((a, i) => {
      const ends = [a.from, a.to].filter((p) => p && laneY.get(p.lane));
      if (ends.length === 0) return;
      const pts = ends.map((p) => ({ x: xOf(p.time), y: laneY.get(p.lane).mid + 13 }));
      const p0 = pts[pts.length - 1]; // newer write
      const p1 = pts[0]; // stale write
      const lift = Math.min(60, 18 + Math.abs(p1.x - p0.x) * 0.15);
      const top = Math.min(p0.y, p1.y) - lift;
      const mx = (p0.x + p1.x) / 2;
      const d =
        pts.length === 2
          ? "M" + r1(p0.x) + "," + r1(p0.y - 8) + " C" + r1(p0.x) + "," + r1(top) + " " + r1(p1.x) + "," + r1(top) + " " + r1(p1.x) + "," + r1(p1.y - 8)
          : "M" + r1(p1.x) + "," + r1(p1.y - 30) + " L" + r1(p1.x) + "," + r1(p1.y - 8);
      out.push(
        '<path class="anomaly-link" data-k="a' + i + '" marker-end="url(#arrow)" d="' + d + '"/>' +
        '<circle class="anomaly-end" cx="' + r1(p0.x) + '" cy="' + r1(p0.y - 8) + '" r="2.5"/>',
      );
      const lo = Math.min(p0.x, p1.x);
      const hi = Math.max(p0.x, p1.x);
      if (hi >= GUTTER && lo <= width - PAD_R) {
        const x = Math.max(GUTTER + 4, Math.min(width - PAD_R - 4, mx));
        labels.push({ i: i, a: a, x: x, apexY: pts.length === 2 ? top + lift * 0.25 : p1.y - 30 });
      }
    });
    for (const l of labels.sort((u, v) => u.x - v.x)) {
      const text = "#" + l.a.n + " " + l.a.headline;
      const w = Math.min(720, plotW() - 4, text.length * 6.1 + 16);
      const left = Math.max(GUTTER + 2, Math.min(width - PAD_R - w, l.x - w / 2));
      let row = rowsEnd.findIndex((end) => end < left - 6);
      if (row < 0 && rowsEnd.length < labelRows) row = rowsEnd.length;
      if (row < 0) row = labels.indexOf(l) % Math.max(1, labelRows);
      rowsEnd[row] = left + w;
      const ly = AXIS_H + 4 + row * ROW_H;
      out.push(
        '<g class="anomaly-label" data-k="a' + l.i + '">' +
        '<line class="leader" x1="' + r1(l.x) + '" x2="' + r1(l.x) + '" y1="' + (ly + ROW_H - 4) + '" y2="' + r1(Math.max(ly + ROW_H - 4, l.apexY)) + '"/>' +
        '<rect x="' + r1(left) + '" y="' + ly + '" width="' + r1(w) + '" height="' + (ROW_H - 4) + '" rx="8"/>' +
        '<text x="' + r1(left + 8) + '" y="' + (ly + 12) + '">' + esc(fit(text, w - 14)) + "</text></g>",
      );
    }
    linksG.innerHTML = out.join("");
  }
  function fit(text, px) {
    const n = Math.floor(px / 6.1);
    return text.length <= n ? text : text.slice(0, Math.max(1, n - 1)) + "…";
  }

  let pending = false;
  function render() {
    pending = false;
    hideTip();
    width = Math.max(420, wrap.clientWidth);
    svg.setAttribute("width", String(width));
    clipRect.setAttribute("width", String(Math.max(0, width - GUTTER)));
    drawAxis();
    drawItems();
    drawLinks();
    document.getElementById("tl-range").textContent =
      fmtMs(Math.max(0, view.t0)) + " – " + fmtMs(view.t1) + "  (" + fmtMs(view.t1 - view.t0) + " shown)";
  }
  function schedule() {
    if (!pending) {
      pending = true;
      requestAnimationFrame(render);
    }
  }

  // ---- zoom and pan ----------------------------------------------------------------------
  const MIN_SPAN = 0.001; // 1 µs
  function setView(t0, t1) {
    let span = Math.max(MIN_SPAN, Math.min(t1 - t0, (full.t1 - full.t0) * 4));
    const mid = (t0 + t1) / 2;
    view = { t0: mid - span / 2, t1: mid + span / 2 };
    schedule();
  }
  function zoomAt(t, factor) {
    setView(t - (t - view.t0) * factor, t + (view.t1 - t) * factor);
  }
  svg.addEventListener(
    "wheel",
    (e) => {
      e.preventDefault();
      const rect = svg.getBoundingClientRect();
      const x = e.clientX - rect.left;
      const span = view.t1 - view.t0;
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const d = ((e.shiftKey ? e.deltaY : e.deltaX) / plotW()) * span;
        setView(view.t0 + d, view.t1 + d);
      } else {
        zoomAt(x < GUTTER ? (view.t0 + view.t1) / 2 : tOf(x), Math.exp(e.deltaY * 0.0015));
      }
    },
    { passive: false },
  );
  let drag = null;
  svg.addEventListener("mousedown", (e) => {
    drag = { x: e.clientX, t0: view.t0, t1: view.t1 };
    svg.classList.add("dragging");
  });
  window.addEventListener("mouseup", () => {
    drag = null;
    svg.classList.remove("dragging");
  });
  window.addEventListener("mousemove", (e) => {
    if (!drag) return;
    const d = ((e.clientX - drag.x) / plotW()) * (drag.t1 - drag.t0);
    setView(drag.t0 - d, drag.t1 - d);
  });
  svg.addEventListener("dblclick", () => setView(full.t0, full.t1));
  document.getElementById("tl-fit").addEventListener("click", () => setView(full.t0, full.t1));
  document.getElementById("tl-in").addEventListener("click", () => zoomAt((view.t0 + view.t1) / 2, 0.5));
  document.getElementById("tl-out").addEventListener("click", () => zoomAt((view.t0 + view.t1) / 2, 2));
  window.addEventListener("resize", schedule);
  window.addEventListener("keydown", (e) => {
    if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "TEXTAREA")) return;
    const span = view.t1 - view.t0;
    if (e.key === "+" || e.key === "=") zoomAt((view.t0 + view.t1) / 2, 0.5);
    else if (e.key === "-") zoomAt((view.t0 + view.t1) / 2, 2);
    else if (e.key === "0") setView(full.t0, full.t1);
    else if (e.key === "ArrowLeft") setView(view.t0 - span * 0.2, view.t1 - span * 0.2);
    else if (e.key === "ArrowRight") setView(view.t0 + span * 0.2, view.t1 + span * 0.2);
  });

  /** Zooms to an anomaly's ops and scrolls the timeline into view. */
  function focusAnomaly(i) {
    const a = tl.anomalies[i];
    const times = [a.from, a.to].filter(Boolean).map((p) => p.time);
    for (const idx of a.ops) {
      const o = opsByIndex.get(idx);
      if (o) times.push(o.time / 1e6);
    }
    if (times.length === 0) return;
    const lo = Math.min.apply(null, times);
    const hi = Math.max.apply(null, times);
    const pad = Math.max((hi - lo) * 0.35, (full.t1 - full.t0) * 0.01, 0.01);
    setView(lo - pad, hi + pad);
    document.getElementById("timeline").scrollIntoView({ behavior: "smooth", block: "start" });
    for (const el of document.querySelectorAll(".anomaly-item.active")) el.classList.remove("active");
    const item = document.querySelector('.anomaly-item[data-anomaly="' + i + '"]');
    if (item) item.classList.add("active");
  }
  for (const el of document.querySelectorAll("[data-anomaly]")) {
    el.addEventListener("click", () => focusAnomaly(Number(el.getAttribute("data-anomaly"))));
  }

  // ---- hover -------------------------------------------------------------------------------
  const opJson = (i) => {
    const o = opsByIndex.get(i);
    if (!o) return "(op " + i + " not in this history)";
    const { index, time, process, type, f, ...rest } = o;
    return JSON.stringify(Object.assign({ index: index, time: time, process: process, type: type, f: f }, rest));
  };
  const row = (k, v) => "<tr><th>" + esc(k) + "</th><td>" + esc(v) + "</td></tr>";
  function describe(key) {
    const kind = key[0];
    const i = Number(key.slice(1));
    let title = "";
    let rows = "";
    let ops = [];
    if (kind === "w") {
      const w = tl.writes[i];
      title = "write by " + w.lane.replace(":", " ") + " — " + w.status;
      rows = row("grant", w.grant) + row("token", w.token === null ? "none" : w.token) +
        row("invoked", fmtMs(w.start)) + row("completed", w.status === "uncertain" && w.time === w.start ? "never" : fmtMs(w.time));
      ops = w.ops;
    } else if (kind === "h") {
      const h = tl.holds[i];
      title = "lock held by " + h.lane.replace(":", " ") + (h.token !== null ? " — token " + h.token : "");
      rows = row("lock", h.lock) + row("grant", h.grant) + row("from", fmtMs(h.start)) +
        row("until", fmtMs(h.end) + (h.release === "none" ? " (history ends)" : "")) +
        row("held", fmtMs(h.end - h.start)) +
        (h.ttlEnd !== null ? row("ttl ends", fmtMs(h.ttlEnd) + (h.ttlEnd < h.end ? " — held past its ttl" : "")) : "") +
        row("release", h.release);
      ops = h.ops;
    } else if (kind === "t") {
      const a = tl.attempts[i];
      title = "acquire by " + a.lane.replace(":", " ") + " — " + (a.outcome === "fail" ? "denied" : a.outcome === "info" ? "outcome unknown" : "no reply");
      rows = row("invoked", fmtMs(a.start)) + row("completed", fmtMs(a.end));
      ops = a.ops;
    } else if (kind === "f") {
      const f = tl.faults[i];
      title = f.label;
      rows = row("nodes", f.lanes.join(", ") || "—") + row("from", fmtMs(f.start)) +
        (f.kind === "clock-jump" ? "" : row("until", f.open ? fmtMs(f.end) + " (still on when the history ends)" : fmtMs(f.end)));
      ops = f.ops;
    } else if (kind === "a") {
      const a = tl.anomalies[i];
      title = "#" + a.n + " " + a.kind + " (" + a.checker + ")";
      rows = '<tr><td colspan="2" class="expl">' + esc(a.explanation) + "</td></tr>";
      ops = a.ops;
    }
    return (
      '<div class="tip-title">' + esc(title) + "</div><table>" + rows + "</table>" +
      (ops.length ? '<div class="tip-ops">' + ops.map((o) => "<code>" + esc(opJson(o)) + "</code>").join("") + "</div>" : "")
    );
  }
  // Hit testing works on the data, not on SVG elements, so it finds single ops even where
  // dense views draw many of them as one path.
  const byLane = new Map();
  for (const lane of tl.lanes) byLane.set(lane.id, { writes: [], holds: [], attempts: [], faults: [] });
  tl.writes.forEach((w, i) => byLane.get(w.lane) && byLane.get(w.lane).writes.push(i));
  tl.holds.forEach((h, i) => byLane.get(h.lane) && byLane.get(h.lane).holds.push(i));
  tl.attempts.forEach((a, i) => byLane.get(a.lane) && byLane.get(a.lane).attempts.push(i));
  tl.faults.forEach((f, i) => {
    for (const l of f.lanes) if (byLane.get(l)) byLane.get(l).faults.push(i);
  });
  for (const d of byLane.values()) d.writes.sort((a, b) => tl.writes[a].time - tl.writes[b].time);

  function hitTest(x, yPos) {
    const lane = tl.lanes.find((l) => {
      const ly = laneY.get(l.id);
      return yPos >= ly.top && yPos < ly.top + ly.h;
    });
    if (!lane || x < GUTTER) return null;
    const ly = laneY.get(lane.id);
    const d = byLane.get(lane.id);
    const t = tOf(x);
    const pxPerMs = plotW() / (view.t1 - view.t0);
    if (Math.abs(yPos - (ly.mid + 13)) <= 8 && d.writes.length) {
      // nearest write by completion time, within 7 px
      const ws = d.writes;
      let lo = 0;
      let hi = ws.length;
      while (lo < hi) {
        const m = (lo + hi) >> 1;
        if (tl.writes[ws[m]].time < t) lo = m + 1;
        else hi = m;
      }
      let best = null;
      let bestD = 7;
      for (let k = Math.max(0, lo - 3); k < Math.min(ws.length, lo + 3); k++) {
        const dd = Math.abs(tl.writes[ws[k]].time - t) * pxPerMs;
        if (dd <= bestD) {
          bestD = dd;
          best = ws[k];
        }
      }
      if (best !== null) return { key: "w" + best, x: xOf(tl.writes[best].time), y: ly.mid + 13, r: 7 };
    }
    const slack = 3 / pxPerMs;
    if (yPos >= ly.mid - 11 && yPos <= ly.mid + 7) {
      const h = d.holds.find((i) => tl.holds[i].start - slack <= t && t <= tl.holds[i].end + slack);
      if (h !== undefined) return { key: "h" + h };
    }
    if (Math.abs(yPos - (ly.mid - 2)) <= 6) {
      const a = d.attempts.find((i) => tl.attempts[i].start - slack <= t && t <= tl.attempts[i].end + slack);
      if (a !== undefined) return { key: "t" + a };
    }
    const f = d.faults.find((i) => tl.faults[i].start - slack <= t && t <= tl.faults[i].end + slack);
    if (f !== undefined) return { key: "f" + f };
    return null;
  }

  const hoverRing = document.createElementNS("http://www.w3.org/2000/svg", "circle");
  hoverRing.setAttribute("class", "hover-ring");
  hoverRing.setAttribute("r", "7");
  hoverRing.style.display = "none";
  svg.appendChild(hoverRing);

  let tipKey = null;
  function hideTip() {
    tip.hidden = true;
    tipKey = null;
    hoverRing.style.display = "none";
  }
  svg.addEventListener("mousemove", (e) => {
    const rect = svg.getBoundingClientRect();
    const x = e.clientX - rect.left;
    const yPos = e.clientY - rect.top;
    if (x >= GUTTER) {
      cursorLine.setAttribute("x1", String(x));
      cursorLine.setAttribute("x2", String(x));
      cursorText.textContent = "cursor " + fmtMs(tOf(x));
    }
    if (drag) return;
    const el = e.target.closest ? e.target.closest("[data-k^=a]") : null;
    const hit = el ? { key: el.getAttribute("data-k") } : hitTest(x, yPos);
    if (!hit) return hideTip();
    if (hit.key !== tipKey) {
      tip.innerHTML = describe(hit.key);
      tipKey = hit.key;
    }
    if (hit.r) {
      hoverRing.setAttribute("cx", String(hit.x));
      hoverRing.setAttribute("cy", String(hit.y));
      hoverRing.style.display = "";
    } else hoverRing.style.display = "none";
    tip.hidden = false;
    const tw = tip.offsetWidth;
    const th = tip.offsetHeight;
    let left = e.clientX + 14;
    let top = e.clientY + 14;
    if (left + tw > window.innerWidth - 8) left = Math.max(8, e.clientX - tw - 14);
    if (top + th > window.innerHeight - 8) top = Math.max(8, e.clientY - th - 14);
    tip.style.left = left + "px";
    tip.style.top = top + "px";
  });
  svg.addEventListener("mouseleave", () => {
    hideTip();
    cursorLine.setAttribute("x1", "-10");
    cursorLine.setAttribute("x2", "-10");
  });

  render();
  window.lockcheckReport = {
    lanes: tl.lanes.length,
    anomalies: tl.anomalies.length,
    drawn: drawn,
    setView: setView,
    focusAnomaly: focusAnomaly,
  };
})();
