/**
 * The linearizability checker from the command line: `checkFileLinearizable` on every input
 * format, and `lockcheck check --checker linearizable` end to end through the built CLI
 * (`node dist/src/cli/main.js`; `npm test` builds first — run `npm run build` before running
 * this file alone).
 *
 * Reference data: /work/shared/data (README.md there): Knossos's mutex/bad/etcd.edn (not
 * linearizable for Knossos's mutex), Porcupine's etcd_000.log (not linearizable) and
 * etcd_002.log (linearizable) per porcupine_test.go, and Porcupine's kv logs.
 */
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { checkFileLinearizable, detectFormat } from "../../src/api/lin-check.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import { testTempDir } from "../temp-dir.js";

const ROOT = join(import.meta.dirname, "../..");
const CLI = join(ROOT, "dist/src/cli/main.js");
const DATA = "/work/shared/data";
const KNOSSOS_ETCD = join(DATA, "knossos/mutex/bad/etcd.edn");
const history = (name: string) => join(ROOT, "histories", name, "history.jsonl");
const tmp = testTempDir("lockcheck-lin-check-");

async function verdict(path: string, model: string): Promise<Verdict> {
  const r = await checkFileLinearizable(path, model, {});
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

describe("checkFileLinearizable", () => {
  it("reads lockcheck JSONL histories and checks each lock model", async () => {
    for (const model of ["mutex", "owner-mutex", "fenced-mutex"]) {
      expect((await verdict(history("clean-serial"), model)).valid).toBe(true);
    }
    // The token service restarted and handed out token 1 again: only the fenced model objects.
    expect((await verdict(history("token-counter-reset-after-restart"), "mutex")).valid).toBe(true);
    const fenced = await verdict(history("token-counter-reset-after-restart"), "fenced-mutex");
    expect(fenced.valid).toBe(false);
    expect(fenced.stats.format).toBe("lockcheck-jsonl");
    expect(fenced.anomalies[0]?.explanation).toContain("token 1");
    // A lease expired under a paused holder: a second client acquired a lock nobody released.
    const paused = await verdict(history("gc-pause-unfenced"), "mutex");
    expect(paused.valid).toBe(false);
    expect(typeof paused.anomalies[0]?.time).toBe("number");
  });

  it("reads Jepsen EDN (Knossos's etcd mutex history: not linearizable)", async () => {
    const v = await verdict(KNOSSOS_ETCD, "mutex");
    expect(v.valid).toBe(false);
    expect(v.stats.format).toBe("jepsen-edn");
  });

  it("reads Porcupine's Jepsen etcd logs and kv logs", async () => {
    expect((await verdict(join(DATA, "porcupine/jepsen/etcd_000.log"), "cas-register")).valid).toBe(false);
    expect((await verdict(join(DATA, "porcupine/jepsen/etcd_002.log"), "cas-register")).valid).toBe(true);
    expect((await verdict(join(DATA, "porcupine/kv/c10-ok.txt"), "kv")).valid).toBe(true);
    expect((await verdict(join(DATA, "porcupine/kv/c10-bad.txt"), "kv")).valid).toBe(false);
  });

  it("detects formats by extension, then by content", () => {
    expect(detectFormat("h.jsonl", undefined)).toBe("lockcheck-jsonl");
    expect(detectFormat("h.edn", "{:type :invoke}")).toBe("jepsen-edn");
    expect(detectFormat("h.txt", "INFO  jepsen.util - 1\t:invoke\t:read\tnil\n")).toBe("jepsen-log");
    expect(detectFormat("h.txt", '{"index":0,"time":0}\n')).toBe("lockcheck-jsonl");
    expect(detectFormat("h.txt", "{:process 1, :type :invoke}\n")).toBe("jepsen-edn");
  });

  it("returns input errors with the file, never throws", async () => {
    const missing = await checkFileLinearizable(join(tmp, "nope.edn"), "mutex", {});
    expect(missing).toMatchObject({ ok: false, error: { file: join(tmp, "nope.edn") } });
    expect(await checkFileLinearizable(KNOSSOS_ETCD, "queue", {})).toMatchObject({
      ok: false,
      error: { field: "--model", message: expect.stringMatching(/unknown model "queue"/) },
    });
    expect(
      await checkFileLinearizable(join(DATA, "porcupine/jepsen/etcd_000.log"), "mutex", {}),
    ).toMatchObject({
      ok: false,
      error: { field: "--model", message: expect.stringMatching(/use --model cas-register/) },
    });
    expect(await checkFileLinearizable(KNOSSOS_ETCD, "cas-register", {})).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/not :release|not :acquire/) },
    });
    const broken = join(tmp, "broken.edn");
    writeFileSync(broken, "[{:process 0, :type :invoke, :f :acquire}");
    expect(await checkFileLinearizable(broken, "mutex", {})).toMatchObject({
      ok: false,
      error: { file: broken, message: expect.stringMatching(/offset 0.*unclosed/) },
    });
  });

  it("answers unknown when the time budget is spent", async () => {
    const r = await checkFileLinearizable(join(DATA, "porcupine/kv/c50-ok.txt"), "kv", { timeLimitMs: 0 });
    expect(r.ok && r.value.valid).toBe("unknown");
    expect(r.ok && r.value.stats.budgetExhausted).toBe("time");
  });
});

describe("lockcheck check --checker linearizable (built CLI)", () => {
  beforeAll(() => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first (npm test does)`);
  });
  const lockcheck = (...args: string[]) => {
    const r = spawnSync(process.execPath, [CLI, "check", ...args, "--checker", "linearizable"], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, NO_COLOR: "1" },
      timeout: 60_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it("exits 1 with the not-linearizable anomaly for Knossos's etcd history", () => {
    const r = lockcheck(KNOSSOS_ETCD, "--model", "mutex", "--json");
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout) as { verdicts: Verdict[] };
    expect(out.verdicts.map((v) => [v.checker, v.valid, v.anomalies[0]?.kind])).toEqual([
      ["linearizable", false, "not-linearizable"],
    ]);
    expect(out.verdicts[0]?.anomalies[0]?.partialLinearization?.length).toBeGreaterThan(100);
  });

  it("exits 0 for a linearizable history and prints the verdict", () => {
    const r = lockcheck(history("clean-serial"), "--model", "fenced-mutex");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/linearizable/);
    expect(r.stdout).toMatch(/model fenced-mutex/);
  });

  it("exits 2 when the time limit is hit", () => {
    // c50-ok needs several search slices of 16k steps for its largest key: far more than 1 ms.
    const r = lockcheck(
      join(DATA, "porcupine/kv/c50-ok.txt"),
      "--model",
      "kv",
      "--time-limit",
      "1",
      "--json",
    );
    const out = JSON.parse(r.stdout) as { valid: unknown; verdicts: Verdict[] };
    expect([r.code, out.valid]).toEqual([2, "unknown"]);
    expect(out.verdicts[0]?.stats.budgetExhausted).toBe("time");
  });

  it("exits 2 on bad input, naming the file", () => {
    const r = lockcheck(join(DATA, "porcupine/jepsen/etcd_000.log"), "--model", "kv");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("etcd_000.log");
    expect(r.stderr).toMatch(/use --model cas-register/);
  });
});
