/**
 * User-supplied locks: the examples in docs/examples/ (the ones docs/custom-locks.md shows)
 * load as targets and lockcheck finds what is wrong with them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replayRun } from "../../src/api/replay.js";
import { checkOps } from "../../src/checkers/index.js";
import { loadModule, resolveTarget } from "../../src/custom/module-target.js";
import { fuzz } from "../../src/runner/fuzz.js";
import type { Schedule } from "../../src/schedule/schedule.js";
import { findTarget } from "../../src/targets/index.js";

const DOCS = join(import.meta.dirname, "../../docs");
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockcheck-custom-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a LockAlgorithm module", () => {
  it("runs in the simulator, where fuzzing finds its stale write", async () => {
    const t = await resolveTarget("module:./examples/my-lock.mjs", DOCS);
    if (!t.ok) throw new Error(JSON.stringify(t.error));
    expect(t.value).toMatchObject({
      name: "sim:my-lease",
      deterministic: true,
      resources: ["unfenced", "fenced"],
    });
    expect(t.value.defaults.servers).toBe(1);
    // Registered: later lookups by name (replaying its schedules) find it.
    expect(findTarget("sim:my-lease").ok).toBe(true);
    // Loading it again returns the same target rather than a clash.
    const again = await resolveTarget(`module:${join(DOCS, "examples/my-lock.mjs")}`);
    expect(again.ok && again.value).toBe(t.value);

    const r = await fuzz({ target: t.value, seed: 11, runs: 200, faults: ["pause"], shrink: false });
    expect(r.error).toBeNull();
    expect(r.counterexample).not.toBeNull();
    const failed = r.counterexample?.verdicts.filter((v) => v.valid === false).map((v) => v.checker) ?? [];
    expect(failed.some((c) => c === "stale-write" || c === "mutual-exclusion")).toBe(true);
  });

  it("loads from TypeScript, with world options from an `options` export", async () => {
    const file = join(dir, "quorum.ts");
    await writeFile(
      file,
      [
        'import type { LockAlgorithm } from "../../work/main/src/locks/lock.js";',
        "export const options = { servers: 3, ttlMs: 500 };",
        "const lock = {",
        '  name: "ts-lease", servers: "redis", fencing: true,',
        '  async acquire() { return { outcome: "denied", reason: "never" } as const; },',
        '  async release() { return { outcome: "not-held" } as const; },',
        "};",
        "export default lock;",
      ].join("\n"),
    );
    const t = await resolveTarget(`module:${file}`);
    if (!t.ok) throw new Error(JSON.stringify(t.error));
    expect(t.value.name).toBe("sim:ts-lease");
    expect(t.value.defaults).toMatchObject({ servers: 3, ttlMs: 500 });
    expect(t.value.resources[0]).toBe("fenced");
  });

  it("explains what is wrong with a module that exports no lock, or a taken name", async () => {
    await writeFile(join(dir, "nothing.mjs"), "export const x = 1;\n");
    const none = await resolveTarget("module:./nothing.mjs", dir);
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error.message).toContain("exports no lock");

    await writeFile(
      join(dir, "clash.mjs"),
      'export default { name: "redlock", servers: "redis", fencing: false, acquire() {}, release() {} };\n',
    );
    const clash = await resolveTarget("module:./clash.mjs", dir);
    expect(clash.ok).toBe(false);
    if (!clash.ok) expect(clash.error.message).toContain('"sim:redlock" is already a target');

    const missing = await resolveTarget("module:./missing.mjs", dir);
    expect(missing.ok).toBe(false);
  });

  it("a LockAlgorithm that says it renews its lease is fuzzed and hunted as one; a non-boolean renews is named", async () => {
    const body = (name: string, renews: string) =>
      `export default { name: "${name}", servers: "etcd", fencing: true, renews: ${renews}, acquire() {}, release() {} };\n`;
    await writeFile(join(dir, "renewing.mjs"), body("renewing", "true"));
    const loaded = await loadModule("module:./renewing.mjs", dir);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    expect(loaded.value.target.name).toBe("sim:renewing");
    expect(loaded.value.target.renews).toBe(true);
    expect(loaded.value.real?.name).toBe("etcd:renewing");
    expect(loaded.value.real?.renews).toBe(true);

    await writeFile(join(dir, "algorithm-renews-yes.mjs"), body("algorithm-renews-yes", '"yes"'));
    const bad = await resolveTarget("module:./algorithm-renews-yes.mjs", dir);
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error.file).toBe(join(dir, "algorithm-renews-yes.mjs"));
      expect(bad.error.field).toBe("renews");
      expect(bad.error.message).toContain('got "yes"');
    }
  });

  it("a would-be library adapter (connect + servers) is told which field is wrong", async () => {
    const cases = [
      [
        "servers-mysql",
        'servers: "mysql", fencing: false',
        "servers",
        'must be "redis" or "etcd", got "mysql"',
      ],
      ["count-zero", 'servers: "redis", count: 0, fencing: false', "count", "from 1 to 9, got 0"],
      ["no-fencing", 'servers: "etcd"', "fencing", "expected true or false"],
      [
        "renews-yes",
        'servers: "redis", fencing: false, renews: "yes"',
        "renews",
        'true or false (whether the library renews its lease while held), got "yes"',
      ],
    ] as const;
    for (const [name, fields, field, message] of cases) {
      await writeFile(
        join(dir, `${name}.mjs`),
        `export default { name: "${name}", ${fields}, connect() {} };\n`,
      );
      const r = await resolveTarget(`module:./${name}.mjs`, dir);
      expect(r.ok, name).toBe(false);
      if (!r.ok) {
        expect(r.error.file).toBe(join(dir, `${name}.mjs`));
        expect(r.error.field).toBe(field);
        expect(r.error.message).toContain(message);
      }
    }
  });
});

describe("a LockAlgorithm that answers outside its contract", () => {
  const oneCycle = (target: string): Schedule => ({
    version: 1,
    target,
    resource: "unfenced",
    seed: 1,
    options: {
      lockName: "lock",
      ttlMs: 100,
      callTimeoutMs: 50,
      horizonMs: 600,
      latencyMs: { min: 1, max: 1 },
      lossRate: 0,
      servers: 1,
    },
    clients: [{ id: 0, cycles: [{ thinkMs: 0, holdMs: 10, writes: 1 }] }],
    faults: [],
  });
  const cases = [
    ["answers-ok", '{ outcome: "ok" }', '{ outcome: "released" }', 'acquire() returned outcome "ok"'],
    ["answers-nothing", "undefined", '{ outcome: "released" }', "acquire() returned undefined"],
    [
      "token-number",
      '{ outcome: "granted", token: 7, handle: {} }',
      '{ outcome: "released" }',
      "acquire() returned a grant whose token is number; expected a bigint",
    ],
    ["release-true", '{ outcome: "granted", token: null, handle: {} }', "true", "release() returned boolean"],
  ] as const;
  for (const [name, acquired, released, message] of cases) {
    it(`${name}: the run fails naming the lock and what it returned`, async () => {
      await writeFile(
        join(dir, `${name}.mjs`),
        `export default { name: "${name}", servers: "redis", fencing: false, async acquire() { return ${acquired}; }, async release() { return ${released}; } };\n`,
      );
      const t = await resolveTarget(`module:./${name}.mjs`, dir);
      if (!t.ok) throw new Error(JSON.stringify(t.error));
      const e = await t.value.run(oneCycle(t.value.name)).then(
        () => null,
        (x: unknown) => x as Error,
      );
      // The simulator names the client and keeps the lock's error as the cause.
      expect(e?.message).toBe(`simulate: client 0 (${name}) threw`);
      expect((e?.cause as Error | undefined)?.message).toContain(`lock ${name}: ${message}`);
    });
  }
});

describe("a plain lock module", () => {
  const schedule = (resource: "unfenced" | "fenced"): Schedule => ({
    version: 1,
    target: "plain:memory-lease",
    resource,
    seed: 1,
    options: {
      lockName: "lock",
      ttlMs: 100,
      callTimeoutMs: 50,
      horizonMs: 600,
      latencyMs: { min: 0, max: 0 },
      lossRate: 0,
      servers: 1,
    },
    clients: [
      { id: 0, cycles: [{ thinkMs: 0, holdMs: 40, writes: 1 }] },
      { id: 1, cycles: [{ thinkMs: 150, holdMs: 40, writes: 2 }] },
    ],
    // Client 0 stops just before its write, for three leases' worth of time.
    faults: [{ kind: "pause-at", client: 0, checkpoint: "before-write", occurrence: 0, durationMs: 300 }],
  });

  it("runs in real time: a paused holder's late write is accepted by an unfenced resource", async () => {
    const t = await resolveTarget("module:./examples/plain-lock.mjs", DOCS);
    if (!t.ok) throw new Error(JSON.stringify(t.error));
    expect(t.value).toMatchObject({ name: "plain:memory-lease", deterministic: false });
    const run = await t.value.run(schedule("unfenced"));
    const verdicts = checkOps(run.ops, ["stale-write"]);
    expect(verdicts[0]?.valid).toBe(false);
    // The pause is in the history, as nemesis ops on client 0.
    expect(
      run.ops.filter((o) => o.process === "nemesis").map((o) => [o.f, "node" in o ? o.node : ""]),
    ).toEqual([
      ["pause", "client:0"],
      ["resume", "client:0"],
    ]);
  });

  it("and the fenced resource rejects it, thanks to the tokens", async () => {
    const t = await resolveTarget("module:./examples/plain-lock.mjs", DOCS);
    if (!t.ok) throw new Error(JSON.stringify(t.error));
    const run = await t.value.run(schedule("fenced"));
    expect(checkOps(run.ops, ["stale-write"])[0]?.valid).toBe(true);
    const late = run.ops.filter((o) => o.process === 0 && o.f === "write" && o.type === "ok");
    expect(late.map((o) => o.f === "write" && o.accepted)).toEqual([false]);
  });

  it("its saved schedule replays, twice, as it is: no servers to start, no sessions", async () => {
    const file = join(dir, "plain-schedule.json");
    const saved = { ...schedule("unfenced"), module: { path: join(DOCS, "examples/plain-lock.mjs") } };
    await writeFile(file, JSON.stringify(saved));
    const r = await replayRun(file, { twice: true });
    if (!r.ok) throw new Error(JSON.stringify(r.error));
    expect(r.value.run.schedule.target).toBe("plain:memory-lease");
    expect(r.value.run.verdicts.find((v) => v.checker === "stale-write")?.valid).toBe(false);
  });
});

describe("--target module:… on the command line", () => {
  it("loads the module and gives its target's name for the option", async () => {
    const { moduleTargetName } = await import("../../src/custom/preload.js");
    expect(await moduleTargetName("module:./examples/my-lock.mjs", "fuzz", DOCS)).toEqual({
      ok: true,
      value: "sim:my-lease",
    });
    expect(await moduleTargetName("module:./examples/plain-lock.mjs", "replay", DOCS)).toEqual({
      ok: true,
      value: "plain:memory-lease",
    });
    const bad = await moduleTargetName("module:./nope.mjs", "fuzz", DOCS);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toBe("cannot import: no such file");
    if (!bad.ok) expect(bad.error.file).toBe(join(DOCS, "nope.mjs"));
  });

  it("a module importing a package its folder cannot resolve says where packages are looked up", async () => {
    await writeFile(
      join(dir, "needs-package.mjs"),
      'import "lockcheck-no-such-package";\nexport default {};\n',
    );
    const r = await resolveTarget("module:./needs-package.mjs", dir);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.message).toContain("Cannot find package 'lockcheck-no-such-package'");
      expect(r.error.message).toContain("install the package in the project that holds it");
    }
  });

  it("a module with a syntax error says on which line, and shows it (neither Node's import() nor vite's does)", async () => {
    await writeFile(join(dir, "typo.mjs"), 'export default {\n  name: "typo",\n  connect( {\n};\n');
    const r = await resolveTarget("module:./typo.mjs", dir);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.file).toBe(join(dir, "typo.mjs"));
      expect(r.error.line, JSON.stringify(r.error)).toBe(4);
      expect(r.error.message).toMatch(/^cannot import: /);
      expect(r.error.message).toContain("\n  };");
    }
  });
});
