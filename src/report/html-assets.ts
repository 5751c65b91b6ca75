/**
 * The browser side of report.html, kept as real files in src/report/assets/ and inlined into
 * every report:
 * - timeline.js draws the timeline model (src/report/timeline.ts) as SVG and handles hover,
 *   zoom and pan. It reads its data from the page's
 *   `<script type="application/json" id="lockcheck-data">` and needs nothing from the network.
 *   Only what is in view is drawn, and the plot is redrawn (at most once per animation frame)
 *   when the view changes, so zooming and panning stay smooth with thousands of ops. Anomaly
 *   links are always drawn, wherever they are, so they can be counted and never go missing.
 *   The headless-browser test in test/report/ exercises it.
 * - timeline.css is the stylesheet (light theme; prints and screenshots cleanly).
 *
 * They are read when the first report is written, next to this module: src/report/assets/
 * when run from sources, dist/src/report/assets/ (copied there by `npm run build`) when run
 * from the package. Their bytes are part of every report's bytes, so biome leaves them alone.
 */
import { readFileSync } from "node:fs";

const cache = new Map<string, string>();

function asset(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");
    cache.set(name, text);
  }
  return text;
}

/** The timeline's script, as inlined in `<script>`. */
export function reportScript(): string {
  return asset("timeline.js");
}

/** The report's stylesheet, as inlined in `<style>`. */
export function reportStyle(): string {
  return asset("timeline.css");
}
