/**
 * clock-jump and clock-drift. A client's clock is its own process's: the child applies the
 * fault to its clock, which is env.now() and, installed as the process's (client/process-clock.ts),
 * Date.now() and the timers of its library and adapters. A redis-server's wall clock is shifted through the LD_PRELOAD clock
 * shim: the parent rewrites the node's clock file and the server's next clock read sees it,
 * so a forward jump expires its keys early (the published Redlock clock-jump timeline).
 * etcd members ignore clock faults: Go does not read the clock through libc, and etcd leases
 * run on a monotonic clock anyway; the fault is recorded as ignored.
 */
import type { Fault } from "../../schedule/schedule.js";
import type { FaultContext } from "./context.js";

type ClockJump = Extract<Fault, { kind: "clock-jump" }>;
type ClockDrift = Extract<Fault, { kind: "clock-drift" }>;

const ETCD_IGNORES = "etcd ignores clock faults (no libc clock; leases use a monotonic clock)";

export async function startClockFault(
  ctx: FaultContext,
  fault: ClockJump | ClockDrift,
): Promise<string | null> {
  const node = await ctx.resolve(fault.node);
  if (node === undefined) return null;
  const value =
    fault.kind === "clock-jump"
      ? { ref: fault.node, deltaMs: fault.deltaMs }
      : { ref: fault.node, rate: fault.rate };
  switch (node.kind) {
    case "client":
      ctx.record(fault.kind, node.name, value);
      ctx.clients.send(
        node.id,
        fault.kind === "clock-jump"
          ? { type: "clock-jump", deltaMs: fault.deltaMs }
          : { type: "clock-drift", rate: fault.rate },
      );
      return null;
    case "redis": {
      const clock = node.node.clock;
      if (clock === null) {
        ctx.record(fault.kind, node.name, {
          ...value,
          ignored: "redis-server started without the clock shim",
        });
        return null;
      }
      ctx.record(fault.kind, node.name, value);
      if (fault.kind === "clock-jump") clock.jump(fault.deltaMs);
      else clock.drift(fault.rate);
      return null;
    }
    case "etcd":
    case "etcd-resource":
      ctx.record(fault.kind, node.name, { ...value, ignored: ETCD_IGNORES });
      return null;
  }
}
