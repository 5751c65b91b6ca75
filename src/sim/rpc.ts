/**
 * Request/response calls from a client to a node over the simulated network.
 *
 * The request travels to `to`, where `serve` runs and answers through `respond` (at once for
 * a Redis-like node, after a commit for a consensus member); the answer travels back. The
 * caller's timer, on its own monotonic clock, turns silence into a `timeout` error ("may or
 * may not have happened"); a reset from a crashed node becomes `unreachable` ("certainly did
 * not happen"). Whichever comes first settles the call; later ones are ignored.
 */
import type { CallResult } from "../env/env.js";
import { type Network, send } from "./network.js";
import { cancelTimer, type SimNode, setTimer } from "./node.js";

export type Respond<T> = (result: CallResult<T>) => void;

export function call<T>(
  net: Network,
  client: SimNode,
  to: SimNode,
  timeoutMs: number,
  serve: (respond: Respond<T>) => void,
): Promise<CallResult<T>> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (r: CallResult<T>): void => {
      if (settled) return;
      settled = true;
      cancelTimer(timer);
      net.core.settled = true;
      resolve(r);
    };
    const timer = setTimer(client, timeoutMs, () => settle({ ok: false, error: { kind: "timeout", node: to.name } }));
    send(
      net,
      client,
      to,
      () => serve((r) => send(net, to, client, () => settle(r))),
      () =>
        send(net, to, client, () =>
          settle({ ok: false, error: { kind: "unreachable", node: to.name, detail: "connection refused" } }),
        ),
    );
  });
}
