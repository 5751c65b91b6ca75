/**
 * etcd members on this machine reach each other through lockcheck's peer links
 * (src/real/cluster/peer-links.ts), each connection told apart by the member that dialed it,
 * so a partition can cut members apart: the leader cut off from its followers loses its
 * place to one of them and, while cut, never hears of the new one; healed, all agree again.
 * In a run, the split is made and recorded as made (`isolated`), not as unsupported.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { findBinary } from "../../src/real/cluster/binaries.js";
import { type EtcdCluster, startEtcdCluster } from "../../src/real/cluster/etcd.js";
import { postJson } from "../../src/real/cluster/net.js";
import { missingBinaries, processesMatching, waitForNone } from "./helpers.js";
import { expectNothingLeftAfterEach, runChecked } from "./run-helpers.js";
import { etcdSchedule } from "./schedules.js";

const missing = missingBinaries(["redis-server", "etcd"]);
const etcd = findBinary("etcd");
const track = expectNothingLeftAfterEach();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Each member's own idea of the leader's id (undefined: it did not answer). */
async function leadersSeen(ports: readonly number[]): Promise<(string | undefined)[]> {
  const answers = await Promise.all(
    ports.map((p) => postJson(`http://127.0.0.1:${p}/v3/maintenance/status`, {}, 500)),
  );
  return answers.map((a) => (a as { leader?: string } | null)?.leader);
}

async function memberId(port: number): Promise<string | undefined> {
  const a = (await postJson(`http://127.0.0.1:${port}/v3/maintenance/status`, {}, 500)) as {
    header?: { member_id?: string };
  } | null;
  return a?.header?.member_id;
}

/** A 3-member cluster for `use`, stopped after it; nothing of it is left. */
async function withCluster(use: (cluster: EtcdCluster, ports: number[]) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lockcheck-peer-links-test-"));
  const started = await startEtcdCluster({ binary: etcd.ok ? etcd.value : "", size: 3, dir, reaper: null });
  if (!started.ok) throw new Error(started.error);
  const cluster = started.value;
  try {
    await use(
      cluster,
      cluster.members.map((m) => m.clientPort),
    );
  } finally {
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  expect(await waitForNone(() => processesMatching(dir), 5000)).toEqual([]);
}

describe.skipIf(missing.length > 0 || process.platform !== "linux")("etcd peer links", () => {
  it("the leader cut off from its followers: one of them leads, the cut one never hears of it; healed, all agree", async () => {
    await withCluster(async (cluster, ports) => {
      expect(cluster.cutPeers).toBeDefined();
      const old = await cluster.leader(2000);
      expect(old).not.toBeNull();
      const others = [0, 1, 2].filter((i) => i !== old);
      const heal = cluster.cutPeers!([old!], others, { mode: "cut", oneWay: false });
      let next: number | null = old;
      for (let i = 0; i < 80 && (next === null || next === old); i++) {
        await sleep(100);
        next = await cluster.leader(500);
      }
      expect(others).toContain(next);
      const nextId = await memberId(ports[next!]!);
      const seen = await leadersSeen(ports);
      expect(seen[others[0]!]).toBe(nextId);
      expect(seen[others[1]!]).toBe(nextId);
      // Both ways cut: the isolated member has not heard of the new leader.
      expect(seen[old!]).not.toBe(nextId);

      heal();
      let agree = false;
      for (let i = 0; i < 80 && !agree; i++) {
        await sleep(100);
        const after = await leadersSeen(ports);
        agree = after.every((l) => l !== undefined && l !== "0" && l === after[0]);
      }
      expect(agree).toBe(true);
    });
  });

  it("one way, the leader's messages held: the others elect one of them, and the old leader, still hearing them, follows it", async () => {
    await withCluster(async (cluster, ports) => {
      const old = await cluster.leader(2000);
      expect(old).not.toBeNull();
      const others = [0, 1, 2].filter((i) => i !== old);
      const heal = cluster.cutPeers!([old!], others, { mode: "blackhole", oneWay: true });
      let seen: (string | undefined)[] = [];
      let nextId: string | undefined;
      for (let i = 0; i < 80; i++) {
        await sleep(100);
        seen = await leadersSeen(ports);
        const ids = await Promise.all(others.map((o) => memberId(ports[o]!)));
        nextId = ids.find((id) => id !== undefined && seen[others[0]!] === id);
        if (nextId !== undefined && seen.every((l) => l === nextId)) break;
      }
      // A follower leads now, and the old leader knows it: the other way was never cut.
      expect(nextId).toBeDefined();
      expect(seen).toEqual([nextId, nextId, nextId]);
      heal();
    });
  });

  it("in a run: the leader's split from the others is made and recorded as isolating it", async () => {
    const r = await runChecked(
      etcdSchedule("fenced", [
        {
          kind: "partition",
          at: 1000,
          durationMs: 2000,
          a: ["server:leader"],
          b: ["server:0", "server:1", "server:2"],
          oneWay: false,
        },
      ]),
    );
    track(r.runId);
    expect(r.run.warnings).toEqual([]);
    expect(r.violations, r.timeline).toEqual([]);
    const split = r.run.ops.find((o) => o.process === "nemesis" && o.f === "partition");
    expect(split, r.timeline).toBeDefined();
    const value = split!.value as { a: string[]; isolated?: string[]; unsupported?: string };
    expect(value.unsupported, r.timeline).toBeUndefined();
    expect(value.isolated, r.timeline).toEqual(value.a);
    expect(value.a, r.timeline).toHaveLength(1);
  });
});
