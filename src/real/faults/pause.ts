/**
 * pause: SIGSTOP a node's process for `durationMs`, then SIGCONT — a GC pause of a client
 * (its keep-alives freeze too), a frozen server (including the etcd leader, `server:leader`),
 * or a frozen resource. A node crashed meanwhile is not resumed (there is nothing to resume).
 */
import type { Fault } from "../../schedule/schedule.js";
import type { ServerProcess } from "../hygiene/managed.js";
import { type FaultContext, serverProcess } from "./context.js";

type PauseFault = Extract<Fault, { kind: "pause" }>;

export async function startPause(ctx: FaultContext, fault: PauseFault): Promise<string | null> {
  const node = await ctx.resolve(fault.node);
  if (node === undefined || node.kind === "etcd-resource") return null;
  const proc: ServerProcess | null | undefined =
    node.kind === "client" ? ctx.clients.process(node.id) : serverProcess(node);
  if (proc === null || proc === undefined || proc.hasExited()) return null;
  const value = { ref: fault.node, durationMs: fault.durationMs };
  ctx.record("pause", node.name, value);
  proc.pause();
  ctx.after(fault.durationMs, () => {
    ctx.record("resume", node.name, value);
    proc.resume();
  });
  return `pause ${node.name}`;
}
