import { readFileSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseShardFlag as parseShard } from "../../src/cli/flags.js";
import {
  failureText,
  type GateReport,
  type GateResult,
  type TargetResult,
} from "../../src/report/gate-result.js";
import { parseJUnit, renderJUnit } from "../../src/report/junit.js";
import { flaggedBy, gateJUnitSuites, planGate, runGate, shardItems } from "../../src/runner/gate/gate.js";
import { parseGateConfig } from "../../src/runner/gate/gate-config.js";
import { checkCorpusEntry, findCorpusEntries } from "../../src/runner/gate/gate-corpus.js";

const HISTORIES = join(import.meta.dirname, "../../histories");
const PLAIN_LOCK = join(import.meta.dirname, "../../docs/examples/plain-lock.mjs");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockcheck-gate-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("sharding", () => {
  it("deals every item to exactly one shard, the same way every time", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string(), { maxLength: 40 }),
        fc.integer({ min: 1, max: 9 }),
        (ids, n) => {
          const items = [...ids].sort();
          const shards = Array.from({ length: n }, (_, i) => shardItems(items, { index: i + 1, count: n }));
          expect(shards.flat().sort()).toEqual(items);
          expect(shardItems(items, { index: 1, count: n })).toEqual(shards[0]);
          // balanced: sizes differ by at most one
          const sizes = shards.map((s) => s.length);
          expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("parses i/n and rejects anything else", () => {
    expect(parseShard("2/4")).toEqual({ ok: true, value: { index: 2, count: 4 } });
    for (const bad of ["0/3", "4/3", "1/0", "a/b", "1", "1/2/3"]) expect(parseShard(bad).ok, bad).toBe(false);
  });
});

function config(body: unknown) {
  const r = parseGateConfig(body, join(dir, "lockcheck.config.json"), dir);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

const byName = (report: GateReport, name: string): GateResult => {
  const r = report.results.find((x) => x.name === name);
  if (!r) throw new Error(`no result ${name}`);
  return r;
};

describe("runGate", () => {
  let report: GateReport;

  beforeAll(async () => {
    // Corpus: two entries copied from histories/, one with its recorded verdict tampered with.
    const corpus = join(dir, "corpus");
    await mkdir(corpus, { recursive: true });
    await cp(join(HISTORIES, "gc-pause-unfenced"), join(corpus, "gc-pause-unfenced"), { recursive: true });
    await cp(join(HISTORIES, "clean-serial"), join(corpus, "tampered"), { recursive: true });
    const expected = JSON.parse(await readFile(join(corpus, "tampered", "expected.json"), "utf8"));
    expected.verdicts["stale-write"] = false; // clean-serial is valid: this must now fail
    await writeFile(join(corpus, "tampered", "expected.json"), JSON.stringify(expected));

    const c = config({
      seed: 3,
      corpus: ["corpus"],
      output: "out",
      targets: [
        {
          name: "canary",
          target: "sim:lease",
          resource: "unfenced",
          expect: "unsafe",
          faults: ["pause"],
          runs: 150,
        },
        {
          name: "regressed",
          target: "sim:lease",
          resource: "unfenced",
          expect: "safe",
          faults: ["pause"],
          runs: 150,
        },
        {
          name: "blind canary",
          target: "sim:lease",
          resource: "unfenced",
          expect: "unsafe",
          faults: [],
          runs: 15,
        },
        { name: "etcd fenced", target: "sim:consensus", resource: "fenced", expect: "safe", runs: 15 },
        { name: "typo", target: "sim:nope", expect: "safe", runs: 1 },
        { name: "real sim", target: "sim:lease", real: true, expect: "safe", runs: 1 },
        { name: "real plain", target: `module:${PLAIN_LOCK}`, real: true, expect: "safe", runs: 1 },
      ],
    });
    const entries = await findCorpusEntries(c.corpus, c.baseDir);
    if (!entries.ok) throw new Error(JSON.stringify(entries.error));
    report = await runGate(planGate(c, entries.value), c, null);
  });

  it("meets an unsafe expectation by finding the violation, and saves it with its report", async () => {
    const r = byName(report, "canary") as TargetResult;
    expect(r).toMatchObject({ met: true, violations: 1 });
    expect(r.counterexample?.dir).toBe(join(dir, "out", "canary"));
    for (const f of ["schedule.json", "history.jsonl", "verdict.json", "report.html"]) {
      expect((await stat(join(dir, "out", "canary", f))).size).toBeGreaterThan(0);
    }
  });

  it("fails a safe expectation when a violation is found, pointing at the replay command", () => {
    const r = byName(report, "regressed") as TargetResult;
    expect(r).toMatchObject({ met: false, violations: 1 });
    const f = failureText(r);
    // What the checkers flagged, by name, as the saved verdict says.
    const saved = JSON.parse(readFileSync(join(dir, "out", "regressed", "verdict.json"), "utf8")) as {
      verdicts: { checker: string; valid: boolean | null; anomalies: { kind: string }[] }[];
    };
    const failed = saved.verdicts.filter((v) => v.valid === false && v.checker !== "liveness");
    expect(failed.length).toBeGreaterThan(0);
    expect(r.counterexample?.flagged).toEqual(
      failed.map((v) => `${v.checker} (${[...new Set(v.anomalies.map((a) => a.kind))].join(", ")})`),
    );
    expect(f.message).toBe(
      `expected safe, but ${r.counterexample!.flagged!.join(", ")} failed in run ${r.counterexample!.foundAtRun} of seed ${r.seed}`,
    );
    expect(f.details).toContain(`the checkers flagged ${r.counterexample!.flagged!.join(", ")}.`);
    expect(f.details).toContain(`replay: lockcheck replay ${join(dir, "out", "regressed", "schedule.json")}`);
  });

  it("flaggedBy names each failed safety checker with its anomaly kinds, and leaves liveness out", () => {
    const v = (checker: string, valid: boolean | null, kinds: string[]) => ({
      checker,
      valid,
      anomalies: kinds.map((kind) => ({ kind, explanation: "", ops: [] })),
      stats: {},
    });
    expect(
      flaggedBy([
        v("stale-write", true, []),
        v("mutual-exclusion", false, ["interleaved-writes", "interleaved-writes"]),
        v("token-order", false, ["token-reuse", "token-regression"]),
        v("liveness", false, ["starved"]),
      ] as never),
    ).toEqual(["mutual-exclusion (interleaved-writes)", "token-order (token-reuse, token-regression)"]);
  });

  it("fails an unsafe canary that finds nothing, and a target that does not exist", () => {
    const blind = byName(report, "blind canary") as TargetResult;
    expect(blind).toMatchObject({ met: false, violations: 0, runs: 15 });
    expect(failureText(blind).message).toContain("none was found in 15 runs");
    expect(failureText(blind).details).toContain(
      "lockcheck fuzz --target sim:lease --resource unfenced --seed 3 --runs 15 --faults none",
    );
    expect(byName(report, "etcd fenced")).toMatchObject({ met: true, violations: 0, runs: 15 });
    const typo = byName(report, "typo");
    expect(typo.met).toBe(false);
    expect(typo.error).toContain('unknown target "sim:nope"');
    // Where each ran: in the simulator; nowhere for a target that could not be loaded.
    expect(blind.ranOn).toBe("simulator");
    expect(typo).not.toHaveProperty("ranOn");
  });

  it("fails a `real` entry whose target has no real-server form, saying why", () => {
    const simTarget = byName(report, "real sim");
    expect(simTarget.met).toBe(false);
    expect(simTarget.error).toContain("real: only with a module: target");
    expect(simTarget.error).toContain("sim:lease runs in the simulator");
    const plain = byName(report, "real plain");
    expect(plain.met).toBe(false);
    expect(plain.error).toContain("(plain:memory-lease) has no real-server target");
  });

  it("re-checks corpus entries against their recorded verdicts", () => {
    expect(byName(report, "corpus/gc-pause-unfenced")).toMatchObject({ met: true, mode: "re-check" });
    expect(byName(report, "corpus/gc-pause-unfenced")).not.toHaveProperty("ranOn");
    const tampered = byName(report, "corpus/tampered");
    expect(tampered.met).toBe(false);
    if (tampered.kind === "corpus")
      expect(tampered.mismatches).toEqual(["stale-write: recorded false, now true"]);
    expect(report.ok).toBe(false);
  });

  it("re-runs a saved run folder (schedule.json) and gets its verdict again", async () => {
    const entries = await findCorpusEntries([join(dir, "out")], dir);
    if (!entries.ok) throw new Error(JSON.stringify(entries.error));
    expect(entries.value.map((e) => [e.name, e.mode])).toEqual([
      ["out/canary", "re-run"],
      ["out/regressed", "re-run"],
    ]);
    for (const e of entries.value)
      expect(await checkCorpusEntry(e)).toMatchObject({ met: true, mismatches: [], ranOn: "simulator" });
  });

  it("writes one JUnit test case per target and corpus entry, failures with their replay command", () => {
    const suites = parseJUnit(renderJUnit(gateJUnitSuites(report)));
    expect(suites.ok).toBe(true);
    if (!suites.ok) return;
    const cases = suites.value.flatMap((s) => s.cases);
    expect(cases).toHaveLength(report.results.length);
    const regressed = cases.find((c) => c.name === "regressed is safe");
    expect(regressed).toMatchObject({ outcome: "failed", classname: "lockcheck.targets" });
    expect(regressed?.details).toContain("lockcheck replay");
    expect(cases.find((c) => c.name === "canary is unsafe")?.output).toMatch(
      /^runs on simulator \d+, violations 1/,
    );
    expect(cases.find((c) => c.name === "typo is safe")?.outcome).toBe("error");
    expect(cases.find((c) => c.name === "corpus/tampered")?.details).toContain("lockcheck check");
    expect(cases.filter((c) => c.outcome === "passed").map((c) => c.name)).toEqual([
      "canary is unsafe",
      "etcd fenced is safe",
      "corpus/gc-pause-unfenced",
    ]);
  });
});
