/**
 * partition: cut the links between every node of `a` and every node of `b` for `durationMs`
 * (or only a→b traffic when `oneWay`), through the links' TCP proxies. The schedule's
 * `partitionMode` says what a cut does to TCP. Overlapping partitions nest: each heal undoes
 * only its own cut.
 */
import type { Fault } from "../../schedule/schedule.js";
import type { FaultContext, RealNode } from "./context.js";
import { directedLink, unsupportedPair } from "./links.js";

type PartitionFault = Extract<Fault, { kind: "partition" }>;

/** What a partition cuts and for how long: a timed partition's, or a `partition-at`'s. */
export type Cut = Pick<PartitionFault, "a" | "b" | "oneWay" | "durationMs">;

async function resolveGroup(ctx: FaultContext, refs: readonly string[]): Promise<RealNode[]> {
  const nodes: RealNode[] = [];
  for (const ref of refs) {
    const node = await ctx.resolve(ref);
    if (node !== undefined && !nodes.some((n) => n.name === node.name)) nodes.push(node);
  }
  return nodes;
}

/** `mark`: more fields for the recorded value (a `partition-at`'s checkpoint hit). */
export async function startPartition(
  ctx: FaultContext,
  fault: Cut,
  mark: Record<string, unknown> = {},
): Promise<string | null> {
  const a = await resolveGroup(ctx, fault.a);
  const b = await resolveGroup(ctx, fault.b);
  const releases: (() => void)[] = [];
  const unsupported: string[] = [];
  for (const x of a) {
    for (const y of b) {
      if (x.name === y.name) continue;
      const why = unsupportedPair(x, y);
      if (why !== null) unsupported.push(why);
      const forward = directedLink(ctx.world, x, y);
      if (forward === null) continue;
      if (fault.oneWay) releases.push(forward.proxy.hold(forward.dir));
      else if (ctx.partitionMode === "cut") releases.push(forward.proxy.cut());
      else {
        releases.push(forward.proxy.hold("up"));
        releases.push(forward.proxy.hold("down"));
      }
    }
  }
  // Links between servers: a world that can cut them does (etcd's peer links; docker: a member
  // off its peer network).
  let isolated: string[] | undefined;
  const isServer = (n: RealNode): boolean =>
    n.kind === "etcd" || (n.kind === "redis" && n.name !== "resource");
  if (ctx.world.cutServerLinks !== undefined && a.some(isServer) && b.some(isServer)) {
    const cut = await ctx.world.cutServerLinks(
      a.filter(isServer).map((n) => n.name),
      b.filter(isServer).map((n) => n.name),
      { mode: ctx.partitionMode, oneWay: fault.oneWay },
    );
    if ("heal" in cut) {
      releases.push(cut.heal);
      isolated = cut.isolated;
      const serverPair = /^server:\d+↔server:\d+$/;
      const rest = unsupported.filter((u) => !serverPair.test(u));
      unsupported.splice(0, unsupported.length, ...rest);
    }
  }
  const value: Record<string, unknown> = {
    a: a.map((n) => n.name),
    b: b.map((n) => n.name),
    oneWay: fault.oneWay,
    durationMs: fault.durationMs,
    mode: fault.oneWay ? "blackhole" : ctx.partitionMode,
    ...mark,
  };
  if (isolated !== undefined) value.isolated = isolated;
  if (unsupported.length > 0)
    value.unsupported = `server↔server links are not proxied: ${unsupported.join(", ")}`;
  if (releases.length === 0 && unsupported.length === 0) return null;
  ctx.record("partition", undefined, value);
  ctx.after(fault.durationMs, () => {
    ctx.record("heal", undefined, value);
    for (const release of releases) release();
  });
  return `partition ${value.a}|${value.b}`;
}
