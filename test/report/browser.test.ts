/**
 * The HTML report in a real headless browser: it loads from disk without errors, draws one
 * lane per client and server and one link per anomaly, shows ops on hover, and zooms and
 * pans over thousands of ops. Screenshots go to test-artifacts/ (git-ignored).
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import { readHistoryFile } from "../../src/history/jsonl.js";
import { isNemesisOp, type Op } from "../../src/history/op.js";
import { renderHtmlReport } from "../../src/report/html.js";
import { type HeadlessBrowser, launchChromium } from "./browser.js";
import { longHistory, pausedHolderHistory, pausedHolderSchedule } from "./fixtures.js";

const ARTIFACTS = join(import.meta.dirname, "../../test-artifacts");
const CORPUS = join(import.meta.dirname, "../../histories");

/** Lanes a history should get with no schedule: its clients, and every node a fault names. */
function expectedLanes(ops: readonly Op[]): number {
  const lanes = new Set<string>();
  for (const op of ops) {
    if (!isNemesisOp(op)) lanes.add(`client:${op.process}`);
    else {
      if (op.node) lanes.add(op.node);
      const v = op.value as { a?: string[]; b?: string[] } | undefined;
      for (const n of [...(v?.a ?? []), ...(v?.b ?? [])]) lanes.add(n);
    }
  }
  return lanes.size;
}

let browser: HeadlessBrowser;
let dir: string;

beforeAll(async () => {
  browser = await launchChromium();
  dir = await mkdtemp(join(tmpdir(), "lockcheck-report-"));
  await mkdir(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Opens `html` from disk, failing on any page error, console error or network request. */
async function open(name: string, html: string): Promise<{ page: Page; problems: string[] }> {
  const file = join(dir, `${name}.html`);
  await writeFile(file, html);
  const page = await browser.context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()}`);
  });
  page.on("request", (r) => {
    if (!r.url().startsWith("file:")) problems.push(`network request: ${r.url()}`);
  });
  await page.goto(`file://${file}`);
  await page.waitForFunction(
    () => (globalThis as unknown as { lockcheckReport?: unknown }).lockcheckReport !== undefined,
  );
  return { page, problems };
}

const rangeText = async (page: Page) => (await page.locator("#tl-range").textContent()) ?? "";

describe("report.html in Chromium", () => {
  it("draws every corpus history with its lanes and one link per anomaly", async () => {
    const entries = (await readdir(CORPUS, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(entries.length).toBeGreaterThan(0);
    let linked = 0;
    for (const name of entries) {
      const history = await readHistoryFile(join(CORPUS, name, "history.jsonl"));
      if (!history.ok) throw new Error(`${name}: ${JSON.stringify(history.error)}`);
      const ops = history.value.ops;
      const verdicts = checkOps(ops);
      const anomalies = verdicts.reduce((n, v) => n + v.anomalies.length, 0);
      linked += anomalies;
      const { page, problems } = await open(name, renderHtmlReport({ ops, verdicts, title: name }));
      expect(await page.locator("#tl-svg .lane").count(), name).toBe(expectedLanes(ops));
      expect(await page.locator("#tl-svg .anomaly-link").count(), name).toBe(anomalies);
      expect(await page.locator("#tl-svg .anomaly-label").count(), name).toBe(anomalies);
      expect(problems, name).toEqual([]);
      if (name === "redlock-clock-jump-double-grant" || name === "gc-pause-unfenced") {
        await page.screenshot({ path: join(ARTIFACTS, `report-corpus-${name}.png`), fullPage: true });
      }
      await page.close();
    }
    expect(linked).toBeGreaterThan(0); // the corpus has failing histories, and they were drawn
  });

  it("draws the lanes and anomaly links of a failing history", async () => {
    const ops = pausedHolderHistory();
    const verdicts = checkOps(ops);
    const anomalies = verdicts.reduce((n, v) => n + v.anomalies.length, 0);
    expect(anomalies).toBeGreaterThanOrEqual(2);
    const { page, problems } = await open(
      "paused-holder",
      renderHtmlReport({
        ops,
        verdicts,
        schedule: pausedHolderSchedule(),
        replayCommand: "lockcheck replay out/run-3",
      }),
    );
    expect(await page.locator("#tl-svg .lane").count()).toBe(6); // 3 clients + 3 servers
    expect(await page.locator("#tl-svg .anomaly-link").count()).toBe(anomalies);
    expect(await page.locator("#tl-svg .hold").count()).toBe(3);
    expect(await page.locator("#tl-svg .write").count()).toBe(6);
    expect(await page.locator("#tl-svg .fault").count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator("#tl-svg .hold text").first().textContent()).toBe("token 1");
    await page.screenshot({ path: join(ARTIFACTS, "report-paused-holder.png"), fullPage: true });

    // Hover shows the full op.
    const stale = page.locator("#tl-svg .write.flagged .mark").last();
    await stale.scrollIntoViewIfNeeded();
    await stale.hover();
    const tip = page.locator("#tl-tip");
    await expect.poll(() => tip.isVisible()).toBe(true);
    expect(await tip.textContent()).toContain('"f":"write"');
    await page.screenshot({ path: join(ARTIFACTS, "report-paused-holder-hover.png") });

    // Clicking an anomaly zooms the timeline to it.
    const before = await rangeText(page);
    await page.locator(".anomaly-item").first().click();
    await expect.poll(() => rangeText(page)).not.toBe(before);
    expect(await page.locator("#tl-svg .anomaly-link").count()).toBe(anomalies);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("zooms and pans over thousands of ops", async () => {
    const ops = longHistory(6, 1500, 4); // ~19k ops
    expect(ops.length).toBeGreaterThan(15_000);
    const verdicts = checkOps(ops, ["stale-write"]);
    const { page, problems } = await open("long", renderHtmlReport({ ops, verdicts }));
    expect(await page.locator("#tl-svg .lane").count()).toBe(6);
    expect(await page.locator("#tl-svg .anomaly-link").count()).toBe(verdicts[0]?.anomalies.length);
    const drawn = () =>
      page.evaluate(
        () =>
          (globalThis as unknown as { lockcheckReport: { drawn: { writes: number; denseWrites: boolean } } })
            .lockcheckReport.drawn,
      );
    // Fitted, the 6000 writes are too dense to draw one by one: dots per lane, except the 120 that
    // the 60 anomalies point at (each stale write and the newer write it follows).
    expect(await drawn()).toEqual({ writes: 120, denseWrites: true, denseHolds: true });
    expect(await page.locator("#tl-svg .write-dots").count()).toBeGreaterThan(0);

    const svg = page.locator("#tl-svg");
    await svg.scrollIntoViewIfNeeded();
    const box = await svg.boundingBox();
    if (!box) throw new Error("no timeline box");
    await page.mouse.move(box.x + box.width / 2, box.y + 80);
    for (let i = 0; i < 12; i++) await page.mouse.wheel(0, -400);
    // Zoomed in: writes are drawn one by one, only those in view.
    await expect.poll(async () => (await drawn()).denseWrites).toBe(false);
    const inView = await page.locator("#tl-svg .write").count();
    expect(inView).toBeGreaterThan(0);
    expect(inView).toBeLessThan(700);
    const zoomed = await rangeText(page);

    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 300, box.y + 80, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => rangeText(page)).not.toBe(zoomed);
    await page.screenshot({ path: join(ARTIFACTS, "report-long-zoomed.png") });

    // Hover finds single ops in the dense view too.
    await page.locator("#tl-fit").click();
    await expect.poll(async () => (await drawn()).denseWrites).toBe(true);
    await page.locator(".anomaly-item").first().click(); // zoom to the first stale write
    await expect.poll(async () => (await drawn()).denseWrites).toBe(false);
    const tips: string[] = [];
    for (const mark of await page.locator("#tl-svg .write.flagged .mark").all()) {
      await mark.hover();
      tips.push((await page.locator("#tl-tip").textContent()) ?? "");
    }
    expect(tips.some((t) => t.includes("/late"))).toBe(true); // the stale write's own op
    expect(problems).toEqual([]);
    await page.close();
  });
});
