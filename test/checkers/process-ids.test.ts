/**
 * Client (process) ids of any size, and named ones: every checker and the validator give the
 * same verdicts for ids that are not small array indexes (2^32, 3·10^8, 2^53 − 1, "alice") as
 * for small ones, including for calls still open when the history ends.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkHistoryFile, checkOps } from "../../src/checkers/index.js";
import type { Verdict } from "../../src/checkers/verdict.js";
import type { ClientId } from "../../src/history/op.js";
import { writeHistory } from "../../src/history/write.js";
import { testTempDir } from "../temp-dir.js";
import { build } from "./build.js";

const dir = testTempDir("lockcheck-process-ids-");

/**
 * Client `p` holds grant 1 and writes; `q` takes the lock (token 2) and writes; `p` writes
 * again with its stale token and that write is still open at the end; `p` is then crashed
 * while it believes it holds the lock.
 */
function scenario(p: ClientId, q: ClientId) {
  const h = build();
  h.acquire(0, p);
  h.granted(1, p, `${p}:0`, 1n);
  h.write(2, p, `${p}:0`, 1n);
  h.wrote(3, p, `${p}:0`, true, 1n);
  h.acquire(10, q);
  h.granted(11, q, `${q}:0`, 2n);
  h.write(12, q, `${q}:0`, 2n);
  h.wrote(13, q, `${q}:0`, true, 2n);
  h.write(20, p, `${p}:0`, 1n);
  h.nemesis(30, "crash", `client:${p}`);
  return h.ops;
}

const shape = (verdicts: Verdict[]) =>
  verdicts.map((v) => ({
    checker: v.checker,
    valid: v.valid,
    anomalies: v.anomalies.map((a) => [a.kind, a.ops]),
  }));

describe("process ids that are not small array indexes", () => {
  const expected = shape(checkOps(scenario(1, 2)));

  it("the baseline has the possible stale write and interleaving of the open write", () => {
    const byName = Object.fromEntries(expected.map((v) => [v.checker, v]));
    expect(byName["stale-write"]!.valid).toBe("unknown");
    expect(byName["stale-write"]!.anomalies.map(([k]) => k)).toEqual(["possible-stale-write"]);
    expect(byName["mutual-exclusion"]!.valid).toBe("unknown");
  });

  it.each([
    [2 ** 32, 2],
    [2 ** 32 + 1, 2 ** 32 - 1],
    [3e8, 7],
    [Number.MAX_SAFE_INTEGER, 0],
    [65536, 65535],
    ["alice", "bob"],
    ["alice", 2],
  ])("client %s (and %s): same verdicts as clients 1 and 2, from ops and from a file", async (p, q) => {
    const ops = scenario(p, q);
    const verdicts = checkOps(ops);
    expect(shape(verdicts)).toEqual(expected);
    const stale = verdicts.find((v) => v.checker === "stale-write")!;
    expect(stale.anomalies[0]!.explanation).toContain(`client ${p}`);
    const path = join(dir, `p${p}.jsonl`);
    expect((await writeHistory(path, ops)).ok).toBe(true);
    const checked = await checkHistoryFile(path);
    expect(checked.ok).toBe(true);
    if (checked.ok) expect(shape(checked.value.verdicts)).toEqual(expected);
  });

  it("the validator tracks open calls of such clients", async () => {
    const h = build();
    h.acquire(0, 2 ** 32);
    h.acquire(1, 2 ** 32);
    const path = join(dir, "double-invoke.jsonl");
    expect((await writeHistory(path, h.ops)).ok).toBe(true);
    const checked = await checkHistoryFile(path);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error[0]).toMatchObject({ line: 2, field: "type" });
  });
});
