/**
 * The library API as a user imports it: `import { fuzz, run, check } from "lockcheck"` and
 * `import "lockcheck/vitest"` (here: the sources those package exports point at).
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  check,
  fuzz,
  type LockAlgorithm,
  LockcheckInputError,
  run,
  SAFETY_CHECKERS,
  scheduleArb,
  scheduleSchema,
} from "../../src/index.js";
import { SIM_BASE_OPTIONS } from "../../src/targets/index.js";
import "../../src/vitest.js";

const HISTORIES = join(import.meta.dirname, "../../histories");
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockcheck-api-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A search of sim:lease that finds its stale write. */
const LEASE_SEED_4 = {
  target: "sim:lease",
  resource: "unfenced",
  seed: 4,
  runs: 300,
  faults: ["pause"],
} as const;

describe("fuzz", () => {
  it("finds, shrinks and saves a violation; the matcher fails with the counterexample and the replay command", async () => {
    const out = join(dir, "lease");
    const report = await fuzz({
      ...LEASE_SEED_4,
      save: out,
    });
    expect(report).toMatchObject({ kind: "fuzz", target: "sim:lease", violation: true, valid: false });
    const ce = report.counterexample;
    expect(ce?.dir).toBe(out);
    expect(ce?.replay).toBe(`lockcheck replay ${out}/schedule.json`);
    expect((await stat(join(out, "report.html"))).size).toBeGreaterThan(0);
    expect(ce?.timeline.length).toBeGreaterThan(0);

    let message = "";
    try {
      expect(report).toHaveNoViolations();
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("lockcheck found a violation in run");
    expect(message).toContain("minimal counterexample:");
    expect(message).toContain(ce?.timeline[0] ?? "(no timeline)");
    expect(message).toContain(`replay: lockcheck replay ${out}/schedule.json`);
    // The negation reads sensibly too.
    expect(report).not.toHaveNoViolations();
  });

  it("saves the run as found before shrinking it; in the simulator removes that copy once the shrunk one is saved", async () => {
    const out = join(dir, "as-found");
    const asFound = `${out}-unshrunk`;
    const seen: { foundAtRun: number; dir: string | null; files: string[] }[] = [];
    const report = await fuzz({
      ...LEASE_SEED_4,
      save: out,
      onFound: (f) => {
        seen.push({ ...f, files: f.dir === null ? [] : readdirSync(f.dir).sort() });
      },
    });
    expect(seen).toEqual([
      {
        foundAtRun: report.counterexample?.foundAtRun,
        dir: asFound,
        files: ["history.jsonl", "report.html", "schedule.json", "verdict.json"],
      },
    ]);
    expect(report.counterexample?.asFound).toBeNull();
    expect(existsSync(asFound)).toBe(false);
    expect(existsSync(join(out, "schedule.json"))).toBe(true);

    // A folder of that name that was there before (an earlier --no-shrink) is the user's: left
    // as it was, and the copy made beside it (-unshrunk-2) is removed.
    const mine = join(dir, "kept");
    mkdirSync(`${mine}-unshrunk`);
    await writeFile(join(`${mine}-unshrunk`, "notes.txt"), "mine\n");
    await fuzz({
      ...LEASE_SEED_4,
      save: mine,
    });
    expect(readdirSync(`${mine}-unshrunk`)).toEqual(["notes.txt"]);
    expect(existsSync(`${mine}-unshrunk-2`)).toBe(false);
  });

  it("passes the matcher when nothing is found, and saves nothing", async () => {
    const report = await fuzz({ target: "sim:consensus", resource: "fenced", seed: 2, runs: 10 });
    expect(report).toMatchObject({ violation: false, valid: true, counterexample: null, runs: 10 });
    expect(report).toHaveNoViolations();
  });

  it("takes a lock object directly", async () => {
    const file = pathToFileURL(join(import.meta.dirname, "../../docs/examples/my-lock.mjs")).href;
    const myLock = (await import(file)).default as LockAlgorithm;
    const report = await fuzz({ target: myLock, seed: 11, runs: 200, faults: ["pause"], save: false });
    expect(report.target).toBe("sim:my-lease");
    expect(report.violation).toBe(true);
    expect(report.counterexample?.dir).toBeNull();
  });

  it("rejects bad arguments at once, naming the call and the field", async () => {
    await expect(fuzz({ target: "sim:nope" })).rejects.toThrow(/^fuzz: target: unknown target "sim:nope"/);
    await expect(fuzz({ target: "sim:lease", resource: "fenced-txn" })).rejects.toBeInstanceOf(
      LockcheckInputError,
    );
  });
});

describe("run and check", () => {
  it("runs a schedule and gets the same verdict fuzz saw", async () => {
    const found = await fuzz({
      ...LEASE_SEED_4,
      save: false,
    });
    const schedule = found.counterexample?.schedule;
    if (!schedule) throw new Error("expected a counterexample");
    const replayed = await run({ schedule });
    expect(replayed).toMatchObject({ kind: "run", target: "sim:lease", violation: true });
    expect(replayed.ops).toEqual(found.counterexample?.ops); // the simulator is deterministic
    expect(() => expect(replayed).toHaveNoViolations()).toThrow(
      /lockcheck found a violation running sim:lease/,
    );
  });

  it("generates a schedule from a seed when none is given", async () => {
    const a = await run({ target: "sim:zk", seed: 5, faults: [] });
    const b = await run({ target: "sim:zk", seed: 5, faults: [] });
    expect(a.schedule).toEqual(b.schedule);
    expect(a.schedule.faults).toEqual([]);
    expect(a).toHaveNoViolations();
  });

  it("checks a history file or ops", async () => {
    const bad = await check(join(HISTORIES, "gc-pause-unfenced", "history.jsonl"));
    expect(bad).toMatchObject({ kind: "check", violation: true, valid: false });
    expect(() => expect(bad).toHaveNoViolations()).toThrow(/stale-write/);
    const good = await check(join(HISTORIES, "clean-serial", "history.jsonl"), { checkers: SAFETY_CHECKERS });
    expect(good.verdicts.map((v) => v.checker)).toEqual([...SAFETY_CHECKERS]);
    expect(good).toHaveNoViolations();
    await expect(check(join(dir, "missing.jsonl"))).rejects.toThrow(/^check: /);
  });

  it("refuses an empty history unless allowEmpty", async () => {
    await expect(check([])).rejects.toThrow(/^check: empty history/);
    const empty = join(dir, "empty.jsonl");
    await writeFile(empty, "\n\n");
    await expect(check(empty)).rejects.toThrow(/empty history/);
    expect(await check([], { allowEmpty: true })).toMatchObject({ ops: 0, valid: true });
    expect(await check(empty, { allowEmpty: true })).toMatchObject({ ops: 0, valid: true });
  });
});

describe("exported arbitraries", () => {
  it("generate valid schedules", () => {
    const arb = scheduleArb({
      target: "sim:redlock",
      resource: "unfenced",
      options: { ...SIM_BASE_OPTIONS, servers: 5 },
      faults: { categories: ["pause", "clock", "partition"] },
    });
    fc.assert(fc.property(arb, (s) => scheduleSchema.safeParse(s).success));
  });
});

describe("toHaveNoViolations", () => {
  it("refuses values that are not lockcheck reports", () => {
    expect(() => expect({ violation: false }).toHaveNoViolations()).toThrow(
      /expects what lockcheck's fuzz\(\), run\(\) or check\(\) returned/,
    );
  });
});
