import { describe, expect, it } from "vitest";
import { checkOps } from "../../src/checkers/index.js";
import { renderHtmlReport } from "../../src/report/html.js";
import { numbered, pausedHolderHistory, pausedHolderSchedule } from "./fixtures.js";

function embeddedData(html: string): { timeline: unknown; ops: Array<Record<string, unknown>> } {
  const m = /<script type="application\/json" id="lockcheck-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m?.[1]) throw new Error("no embedded data");
  return JSON.parse(m[1]);
}

describe("renderHtmlReport", () => {
  const ops = pausedHolderHistory();
  const verdicts = checkOps(ops, ["stale-write", "mutual-exclusion", "token-order"]);
  const html = renderHtmlReport({
    ops,
    verdicts,
    schedule: pausedHolderSchedule(),
    replayCommand: "lockcheck replay out/run-1",
  });

  it("is one self-contained file that loads nothing from anywhere", () => {
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=/i);
    expect(html).not.toMatch(/url\(\s*['"]?(https?:)?\/\//i);
    expect(html).not.toMatch(/@import/);
    expect(html).toContain("default-src 'none'");
  });

  it("summarises the verdicts and the run on top", () => {
    expect(html).toContain("✗ violation");
    expect(html).toContain("stale-write");
    expect(html).toContain("interleaved-writes");
    expect(html).toContain("lockcheck replay out/run-1");
    expect(html).toContain("target <b>sim:redlock</b>");
    // one list item per anomaly, each clickable
    expect(html.match(/class="anomaly-item/g)).toHaveLength(
      verdicts.reduce((n, v) => n + v.anomalies.length, 0),
    );
  });

  it("is deterministic", () => {
    const again = renderHtmlReport({
      ops,
      verdicts,
      schedule: pausedHolderSchedule(),
      replayCommand: "lockcheck replay out/run-1",
    });
    expect(again).toBe(html);
  });

  it("embeds every op, with tokens beyond 2^53 exact", () => {
    const big = 2n ** 63n - 1n;
    const history = numbered([
      { time: 0, process: 0, type: "invoke", f: "acquire", lock: "L" },
      { time: 1e6, process: 0, type: "ok", f: "acquire", lock: "L", grant: "0:0", token: big },
    ]);
    const data = embeddedData(renderHtmlReport({ ops: history, verdicts: [] }));
    expect(data.ops).toHaveLength(2);
    expect(data.ops[1]?.token).toBe("9223372036854775807");
  });

  it("cannot be broken out of by values in the history", () => {
    const evil = "</script><script>alert(1)</script><!--";
    const history = numbered([
      { time: 0, process: 0, type: "invoke", f: "write", lock: "L", grant: "g", value: evil },
      {
        time: 1e6,
        process: 0,
        type: "ok",
        f: "write",
        lock: "L",
        grant: "g",
        accepted: true,
        error: "<b>x</b>",
      },
    ]);
    const out = renderHtmlReport({
      ops: history,
      verdicts: [
        { checker: "x<y>", valid: false, anomalies: [{ kind: "k", ops: [1], explanation: evil }], stats: {} },
      ],
      title: "<i>t</i>",
    });
    expect(out).not.toContain(evil);
    expect(out).not.toContain("<i>t</i>");
    expect(out.match(/<script/g)).toHaveLength(2); // the data block and the script, nothing injected
    expect(embeddedData(out).ops[0]?.value).toBe(evil);
  });

  it("says so when no checker ran", () => {
    const out = renderHtmlReport({ ops, verdicts: [] });
    expect(out).toContain("No checker verdicts were given.");
    expect(out).not.toContain("✗ violation");
  });
});
