/**
 * `server:leader` on a real etcd cluster names whoever leads when the fault starts. Right after
 * the leader was paused or isolated there may be none for a while (an election under way): the
 * fault waits for one, within a bound, instead of quietly doing nothing (a docker CI run lost
 * its leader-isolation fault that way).
 */
import { describe, expect, it } from "vitest";
import type { ClientFleet } from "../../src/real/clients.js";
import type { EtcdCluster, EtcdMember } from "../../src/real/cluster/etcd.js";
import { resolveNode } from "../../src/real/faults/context.js";
import type { RealWorld } from "../../src/real/world.js";

const members = ["etcd0", "etcd1", "etcd2"].map((name) => ({ name }) as unknown as EtcdMember);

/** A world whose etcd answers `leaders` in turn, then keeps answering the last. */
function worldWithLeaders(leaders: (number | null)[]): { world: RealWorld; asked: () => number } {
  let asked = 0;
  const etcd = {
    members,
    leader: async () => leaders[Math.min(asked++, leaders.length - 1)] ?? null,
    stop: async () => {},
  } as unknown as EtcdCluster;
  const world = { etcd, redis: [], resource: null } as unknown as RealWorld;
  return { world, asked: () => asked };
}

const clients = { ids: [0, 1] } as unknown as ClientFleet;

describe("server:leader on a real etcd cluster", () => {
  it("is the member that leads now", async () => {
    const { world, asked } = worldWithLeaders([2]);
    const node = await resolveNode(world, clients, "server:leader", 1000);
    expect(node).toMatchObject({ kind: "etcd", name: "etcd2" });
    expect(asked()).toBe(1);
  });

  it("waits out an election: no leader for three answers, then member 1", async () => {
    const { world, asked } = worldWithLeaders([null, null, null, 1]);
    const node = await resolveNode(world, clients, "server:leader", 5000);
    expect(node).toMatchObject({ kind: "etcd", name: "etcd1" });
    expect(asked()).toBe(4);
  });

  it("gives up after its bound when no member leads at all (nothing to aim at)", async () => {
    const { world, asked } = worldWithLeaders([null]);
    const started = performance.now();
    const node = await resolveNode(world, clients, "server:leader", 300);
    expect(node).toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(asked()).toBeGreaterThan(1);
  });

  it("a numbered server does not ask who leads", async () => {
    const { world, asked } = worldWithLeaders([null]);
    expect(await resolveNode(world, clients, "server:1", 1000)).toMatchObject({ name: "etcd1" });
    expect(asked()).toBe(0);
  });
});
