/**
 * pause-at and pause-in-call: a client pauses itself at a chosen point of its lock algorithm
 * (env.checkpoint), or a chosen time into one of its calls (client/pause-in-call.ts): it
 * tells the parent and SIGSTOPs itself synchronously; here the parent waits until the
 * kernel reports the process stopped, records the pause at the time the child stamped, and
 * SIGCONTs it `durationMs` after that moment.
 */
import type { PauseRequest } from "../clients.js";
import { processState } from "../hygiene/processes.js";
import type { FaultContext } from "./context.js";

const STOP_WAIT_MS = 2000;

export async function handlePauseRequest(ctx: FaultContext, req: PauseRequest): Promise<string | null> {
  const proc = ctx.clients.process(req.clientId);
  if (proc === undefined) return null;
  const name = `client:${req.clientId}`;
  const deadline = Date.now() + STOP_WAIT_MS;
  while (processState(proc.pid) !== "T" && !proc.hasExited() && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1));
  }
  const { value } = req;
  ctx.record("pause", name, value, req.time);
  const elapsedMs = (ctx.nowNs() - req.time) / 1e6;
  ctx.after(Math.max(0, req.durationMs - elapsedMs), () => {
    ctx.record("resume", name, value);
    proc.resume();
  });
  return req.label;
}
