/**
 * "Once the call's requests are written": the moment a `pause-in-call` 0 ms into a call stops
 * its client, and a race on loopback.
 *
 * A library on a JS socket (ioredis: every Redis client library here) writes its request
 * within the call, or in a tick after it. Its server's reply can then be back before the next
 * loop turn, and a stop taken from `setImmediate` (after the poll phase) lands after the call
 * has read it: the pause misses the call (`inCall: false`), and a counterexample whose pause
 * is inside an acquire does not fail again. So the stop is also taken right after the first
 * write to a TCP socket, once the code that write belongs to has run (its microtasks, then a
 * tick: the whole fan-out of a Redlock acquire is written by then) and before the process
 * reads anything more.
 *
 * gRPC (etcd3) writes from native code in the check phase, after the call: no JS write is
 * seen, and `setImmediate`, queued at the invoke, runs after that flush. So the stop is
 * whichever comes first.
 */
import { Socket } from "node:net";

const waiting = new Set<() => void>();
let hooked = false;
const resolved = Promise.resolve();

function onWrite(socket: Socket): void {
  if (waiting.size === 0 || socket.remotePort === undefined) return; // stdio pipes are sockets too
  const due = [...waiting];
  waiting.clear();
  resolved.then(() =>
    process.nextTick(() => {
      for (const f of due) f();
    }),
  );
}

function hookWrites(): void {
  if (hooked) return;
  hooked = true;
  const write = Socket.prototype.write;
  Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
    const result = write.apply(this, args);
    onWrite(this);
    return result;
  } as Socket["write"];
}

/**
 * Calls `then` once, at the earlier of: just after the next TCP write and the code it came
 * from (see above), or a `setImmediate` from now.
 */
export function afterNextWrite(then: () => void): void {
  hookWrites();
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    waiting.delete(once);
    then();
  };
  waiting.add(once);
  setImmediate(once);
}
