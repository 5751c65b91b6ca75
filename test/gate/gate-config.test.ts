import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gate } from "../../src/api/gate.js";
import {
  findDefaultConfig,
  gateTargetName,
  loadGateConfig,
  parseGateConfig,
} from "../../src/runner/gate/gate-config.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockcheck-gate-config-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("gate config", () => {
  it("applies defaults and resolves paths against the config's folder", () => {
    const r = parseGateConfig(
      { targets: [{ target: "sim:lease", expect: "unsafe" }] },
      "/x/lockcheck.config.json",
      "/x",
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({
      seed: 1,
      corpus: ["/x/histories"],
      defaultCorpus: true,
      output: "/x/lockcheck-out/gate",
      baseDir: "/x",
      cluster: "process",
    });
    expect(r.value.targets[0]).toEqual({ target: "sim:lease", expect: "unsafe" });
  });

  it("locates every problem by field", () => {
    const r = parseGateConfig(
      {
        targets: [
          { target: "sim:lease", expect: "maybe" },
          { target: "sim:lease", expect: "safe", time: "soon", colour: "red" },
        ],
        defaults: { faults: ["pause", "meteor"] },
        cluster: "k8s",
      },
      "gate.json",
      "/x",
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const byField = Object.fromEntries(r.error.map((e) => [e.field, e.message]));
    expect(byField["targets[0].expect"]).toContain('"safe", "unsafe"');
    expect(byField["targets[1].time"]).toContain("duration");
    expect(byField["targets[1]"]).toContain('"colour"');
    expect(byField["defaults.faults[1]"]).toContain('"pause"');
    expect(byField.cluster).toBe('expected one of "process", "docker"');
    expect(r.error.every((e) => e.file === "gate.json")).toBe(true);
  });

  it("rejects two targets with the same name", () => {
    const r = parseGateConfig(
      {
        targets: [
          { target: "sim:lease", expect: "unsafe" },
          { target: "sim:lease", expect: "safe" },
        ],
      },
      null,
      "/x",
    );
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error[0]).toMatchObject({
        field: "targets[1].name",
        message: expect.stringContaining("used twice"),
      });
  });

  it("a module's real entry is named apart from its simulator one", () => {
    const r = parseGateConfig(
      {
        targets: [
          { target: "module:./lock.mjs", expect: "safe" },
          { target: "module:./lock.mjs", real: true, expect: "safe" },
          { target: "module:./lock.mjs", real: true, resource: "unfenced", expect: "unsafe" },
        ],
      },
      null,
      "/x",
    );
    expect(r.ok).toBe(true);
    if (r.ok)
      expect(r.value.targets.map(gateTargetName)).toEqual([
        "module:./lock.mjs",
        "module:./lock.mjs --real",
        "module:./lock.mjs --real (unfenced)",
      ]);
    const bad = parseGateConfig(
      { targets: [{ target: "sim:lease", real: "yes", expect: "safe" }] },
      null,
      "/x",
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error[0]).toMatchObject({ field: "targets[0].real" });
  });

  it("loads JSON, JavaScript and TypeScript configs", async () => {
    const body = { seed: 9, targets: [{ target: "sim:zk", expect: "safe", runs: 3 }] };
    await writeFile(join(dir, "a.json"), JSON.stringify(body));
    await writeFile(join(dir, "b.mjs"), `export default ${JSON.stringify(body)};\n`);
    await writeFile(
      join(dir, "c.ts"),
      `type Expect = "safe" | "unsafe";\nconst expectation: Expect = "safe";\nexport default { seed: 9, targets: [{ target: "sim:zk", expect: expectation, runs: 3 }] };\n`,
    );
    for (const name of ["a.json", "b.mjs", "c.ts"]) {
      const r = await loadGateConfig(join(dir, name));
      expect(r.ok, name).toBe(true);
      if (r.ok) expect(r.value.targets, name).toEqual(body.targets);
      if (r.ok) expect(r.value.seed).toBe(9);
    }
  });

  it("reports unreadable configs as input errors", async () => {
    await writeFile(join(dir, "bad.json"), "{ targets: ");
    const bad = await loadGateConfig(join(dir, "bad.json"));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error[0]?.message).toContain("not valid JSON");
    await writeFile(join(dir, "none.mjs"), "export const x = 1;\n");
    const none = await loadGateConfig(join(dir, "none.mjs"));
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error[0]?.message).toContain("exports no config");
    const missing = await loadGateConfig(join(dir, "missing.json"));
    expect(missing.ok).toBe(false);
  });

  it("finds lockcheck.config.* in a folder, .ts first", async () => {
    const sub = await mkdtemp(join(dir, "find-"));
    expect(await findDefaultConfig(sub)).toBeNull();
    await writeFile(join(sub, "lockcheck.config.json"), "{}");
    expect(await findDefaultConfig(sub)).toBe(join(sub, "lockcheck.config.json"));
    await writeFile(join(sub, "lockcheck.config.ts"), "export default {};");
    expect(await findDefaultConfig(sub)).toBe(join(sub, "lockcheck.config.ts"));
  });

  it("without a corpus field, a missing histories/ folder is no corpus; a corpus folder named but missing is an error", async () => {
    const work = await mkdtemp(join(dir, "corpus-"));
    const target = {
      target: "sim:lease",
      resource: "unfenced",
      expect: "unsafe",
      faults: ["pause"],
      runs: 50,
    };
    await writeFile(join(work, "none.json"), JSON.stringify({ targets: [target], output: "out" }));
    const r = await gate({ config: join(work, "none.json") });
    expect(r.ok && r.value.results.map((x) => x.kind)).toEqual(["target"]);

    await writeFile(join(work, "named.json"), JSON.stringify({ targets: [target], corpus: ["histories"] }));
    const named = await gate({ config: join(work, "named.json") });
    expect(named.ok).toBe(false);
    if (!named.ok) expect(named.error[0]).toMatchObject({ field: "corpus", message: "no such folder" });
  });
});
