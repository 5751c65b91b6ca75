/**
 * delay: traffic from `from` to `to` arrives `extraMs` later during [at, at + durationMs),
 * by holding each chunk in that link's proxy (order is kept). Only client↔server and
 * client↔resource links are proxied; other pairs are recorded as unsupported.
 */
import type { Fault } from "../../schedule/schedule.js";
import type { FaultContext } from "./context.js";
import { directedLink, unsupportedPair } from "./links.js";

type DelayFault = Extract<Fault, { kind: "delay" }>;

/** What a delay holds back, by how much and for how long: a timed delay's, or a `delay-at`'s. */
export type Delay = Pick<DelayFault, "from" | "to" | "extraMs" | "durationMs">;

/** `mark`: more fields for the recorded value (a `delay-at`'s checkpoint hit). */
export async function startDelay(
  ctx: FaultContext,
  fault: Delay,
  mark: Record<string, unknown> = {},
): Promise<string | null> {
  const from = await ctx.resolve(fault.from);
  const to = await ctx.resolve(fault.to);
  if (from === undefined || to === undefined || from.name === to.name) return null;
  const value: Record<string, unknown> = {
    from: from.name,
    to: to.name,
    extraMs: fault.extraMs,
    durationMs: fault.durationMs,
    ...mark,
  };
  const link = directedLink(ctx.world, from, to);
  if (link === null) {
    const why = unsupportedPair(from, to);
    if (why !== null) ctx.record("delay", from.name, { ...value, unsupported: `not proxied: ${why}` });
    return null;
  }
  ctx.record("delay", from.name, value);
  const release = link.proxy.delay(link.dir, fault.extraMs);
  ctx.after(fault.durationMs, () => {
    ctx.record("delay-end", from.name, value);
    release();
  });
  return `delay ${from.name}→${to.name}`;
}
