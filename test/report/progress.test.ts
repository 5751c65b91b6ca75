import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { colorEnabled, colorsFor } from "../../src/report/colors.js";
import {
  formatDuration,
  formatProgressLine,
  type ProgressState,
  startProgress,
} from "../../src/report/progress.js";

/** A stream that records what is written and claims to be (or not to be) a terminal. */
function captureStream(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  }) as unknown as NodeJS.WriteStream & { isTTY: boolean; columns: number };
  w.isTTY = isTTY;
  w.columns = 120;
  return { stream: w, text: () => chunks.join("") };
}

const plain = colorsFor({ isTTY: false }, {});
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

function state(over: Partial<ProgressState>): ProgressState {
  return {
    title: "fuzz sim:redlock",
    unit: "runs",
    done: 0,
    total: undefined,
    violations: 0,
    tallied: 0,
    shrinkRuns: null,
    elapsedMs: 0,
    ...over,
  };
}

describe("startProgress", () => {
  it("off a TTY, prints a plain line at most every 15 s, and nothing in the first 15 s", () => {
    const out = captureStream(false);
    let t = 1_000_000;
    const p = startProgress({ title: "shrink redis:lease", total: 10, stream: out.stream, now: () => t });
    p.update({ done: 1 });
    t += 14_999;
    p.update({ done: 2, shrinkRuns: 2 });
    expect(out.text()).toBe("");
    t += 1;
    p.update({ done: 3, shrinkRuns: 3 });
    const first = out.text();
    expect(first.split("\n").filter((l) => l !== "")).toHaveLength(1);
    expect(first).toContain("shrink redis:lease");
    expect(first).toContain("3/10");
    expect(first).toContain("shrinking: 3 runs");
    expect(first.includes("\u001b[")).toBe(false); // no colour codes in a log
    t += 10_000;
    p.update({ done: 4 });
    expect(out.text()).toBe(first);
    t += 5_000;
    p.update({ done: 5 });
    expect(
      out
        .text()
        .split("\n")
        .filter((l) => l !== ""),
    ).toHaveLength(2);
    p.stop();
  });

  it("off a TTY, prints what a tally counts, as updated, and not the violations", () => {
    const out = captureStream(false);
    let t = 0;
    const p = startProgress({
      title: "shrink redis:guarded",
      stream: out.stream,
      now: () => t,
      tally: (n) => `${n} smaller kept`,
    });
    t = 15_000;
    p.update({ done: 4, tallied: 1 });
    expect(out.text()).toContain("4 runs");
    expect(out.text()).toContain("1 smaller kept");
    expect(out.text()).not.toContain("violation");
    p.stop();
  });

  it("writes nothing when the stream is not a TTY and the work is quick", () => {
    const out = captureStream(false);
    const p = startProgress({ title: "fuzz", total: 10, stream: out.stream });
    p.update({ done: 5, violations: 1 });
    p.log("found one");
    p.stop();
    expect(out.text()).toBe("");
  });

  it("says news off a TTY at once, as a plain line, but not under quiet", () => {
    const out = captureStream(false);
    const p = startProgress({ title: "fuzz", total: 10, stream: out.stream });
    p.update({ done: 5, violations: 1 });
    p.say("violation found in run 5; saved as found in out-unshrunk/");
    p.stop();
    expect(out.text()).toBe("violation found in run 5; saved as found in out-unshrunk/\n");
    const quiet = captureStream(false);
    startProgress({ title: "fuzz", stream: quiet.stream, quiet: true }).say("hidden");
    expect(quiet.text()).toBe("");
  });

  it("writes nothing with quiet, even on a TTY", () => {
    const out = captureStream(true);
    const p = startProgress({ title: "fuzz", total: 10, quiet: true, stream: out.stream });
    p.update({ done: 5 });
    p.log("found one");
    p.stop();
    expect(out.text()).toBe("");
  });

  it("draws runs, violations and logged lines on a TTY", () => {
    const out = captureStream(true);
    const p = startProgress({ title: "fuzz sim:redlock", total: 10, stream: out.stream });
    p.update({ done: 3, violations: 1, shrinkRuns: 4 });
    p.log("violation in run 3");
    p.update({ done: 10 });
    p.stop();
    p.update({ done: 11 }); // after stop: ignored, must not throw
    const text = out.text().replace(ANSI, "");
    expect(text).toContain("violation in run 3\n");
    expect(text).toContain("10/10 runs");
    expect(text).toContain("1 violation");
    expect(text).toContain("100%");
    expect(text).not.toContain("11/10");
  });
});

describe("formatProgressLine", () => {
  it("shows a bar and an ETA when the total is known", () => {
    const line = formatProgressLine(state({ done: 50, total: 100, elapsedMs: 10_000 }), plain, 200);
    expect(line).toContain(" 50%");
    expect(line).toContain("50/100 runs");
    expect(line).toContain("5.00 runs/s");
    expect(line).toContain("ETA 10s");
    expect(line).toContain("0 violations");
  });

  it("shows elapsed time and no bar when open-ended", () => {
    const line = formatProgressLine(state({ done: 7, elapsedMs: 65_000 }), plain, 200);
    expect(line).toContain("7 runs");
    expect(line).toContain("1m05s elapsed");
    expect(line).not.toContain("%");
    expect(line).not.toContain("ETA");
  });

  it("once shrinking, shows its runs and the time elapsed instead of the stopped search's rate and ETA", () => {
    const s = state({ done: 2, total: 3, violations: 1, shrinkRuns: 17, elapsedMs: 65_000 });
    const line = formatProgressLine(s, plain, 200);
    expect(line).toContain("2/3 runs");
    expect(line).toContain("1 violation");
    expect(line).toContain("shrinking: 17 runs");
    expect(line).toContain("1m05s elapsed");
    expect(line).not.toContain("runs/s");
    expect(line).not.toContain("ETA");
  });

  it("fits the terminal width by narrowing the bar, then dropping it, and keeps saying it shrinks", () => {
    const s = state({ done: 1, total: 3, violations: 2, shrinkRuns: 1, elapsedMs: 1000 });
    expect(formatProgressLine(s, plain, 500)).toContain("░");
    for (const width of [100, 80, 70]) {
      const line = formatProgressLine(s, plain, width);
      expect(line.length).toBeLessThanOrEqual(width);
      expect(line).toContain("2 violations");
      expect(line).toContain("shrinking: 1 run ");
    }
    expect(formatProgressLine(s, plain, 70)).not.toContain("░");
  });

  it("shows what a tally counts instead of violations, and no second count when the tally is null", () => {
    const kept = formatProgressLine(
      state({ done: 6, violations: 0, tally: (n) => `${n} smaller kept`, tallied: 2, elapsedMs: 19_000 }),
      plain,
      200,
    );
    expect(kept).toContain("6 runs");
    expect(kept).toContain("2 smaller kept");
    expect(kept).not.toContain("violation");
    const none = formatProgressLine(state({ done: 6, tally: null, elapsedMs: 19_000 }), plain, 200);
    expect(none).toContain("6 runs");
    expect(none).toContain("19s elapsed");
    expect(none).not.toContain("violation");
    expect(none).not.toContain("kept");
  });

  it("counts only visible characters when colours are on", () => {
    const colored = colorsFor({ isTTY: true }, {});
    const s = state({ done: 1, total: 3, violations: 1, elapsedMs: 1000 });
    const line = formatProgressLine(s, colored, 80);
    expect(line).toMatch(ANSI);
    expect(line.replace(ANSI, "")).toBe(formatProgressLine(s, plain, 80));
  });
});

describe("colours", () => {
  it("are on only for a TTY, and NO_COLOR wins", () => {
    expect(colorEnabled({ isTTY: true }, {})).toBe(true);
    expect(colorEnabled({ isTTY: false }, {})).toBe(false);
    expect(colorEnabled({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
    expect(colorEnabled({ isTTY: false }, { FORCE_COLOR: "1" })).toBe(true);
    expect(colorEnabled({ isTTY: true }, { TERM: "dumb" })).toBe(false);
    expect(plain.red("x")).toBe("x");
  });
});

describe("formatDuration", () => {
  it("uses s, m and h", () => {
    expect(formatDuration(9.4)).toBe("9s");
    expect(formatDuration(65)).toBe("1m05s");
    expect(formatDuration(7380)).toBe("2h03m");
  });
});
