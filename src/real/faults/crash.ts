/**
 * crash: SIGKILL a node's process. A lock server restarts `restartAfterMs` later (Redis comes
 * back empty, as without persistence; an etcd member restarts from its data dir and rejoins);
 * the resource restarts with what it accepted (it is durable); a client is never restarted —
 * a crashed client never releases, and its open calls complete as `info`.
 */
import type { Fault } from "../../schedule/schedule.js";
import type { FaultContext } from "./context.js";

type CrashFault = Extract<Fault, { kind: "crash" }>;

export async function startCrash(ctx: FaultContext, fault: CrashFault): Promise<string | null> {
  const node = await ctx.resolve(fault.node);
  if (node === undefined || node.kind === "etcd-resource") return null;
  const value = { ref: fault.node, restartAfterMs: fault.restartAfterMs };
  if (node.kind === "client") {
    ctx.record("crash", node.name, value);
    await ctx.clients.crash(node.id);
    return null;
  }
  const target = node.kind === "redis" ? node.node : node.member;
  if (target.current() === null) return null;
  ctx.record("crash", node.name, value);
  await target.crash();
  if (fault.restartAfterMs === null) return null;
  ctx.after(fault.restartAfterMs, async () => {
    const restarted = await target.restart();
    ctx.record(
      "restart",
      node.name,
      restarted.ok ? { ref: fault.node } : { ref: fault.node, error: restarted.error },
    );
  });
  return `crash ${node.name}`;
}
