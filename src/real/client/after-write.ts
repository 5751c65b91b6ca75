/**
 * "Once the call's requests are written": the moment a `pause-in-call` 0 ms into a call stops
 * its client, and a race on loopback.
 *
 * A library on a JS socket writes its request within the call (ioredis), in a tick after it,
 * or in a `setImmediate` queued by the call (node-redis v5 gathers a loop turn's commands and
 * writes them from one). Its server's reply can then be back before the next loop turn, and a
 * stop taken from `setImmediate` (after the poll phase) lands after the call has read it: the
 * pause misses the call (`inCall: false`), and a counterexample whose pause is inside an
 * acquire does not fail again. So the stop is also taken right after the first write to a TCP
 * socket, once the code that write belongs to has run (its microtasks, then a tick: the whole
 * fan-out of a Redlock acquire is written by then) and before the process reads anything more.
 *
 * gRPC (etcd3) writes from native code in the check phase, after the call: no JS write is
 * seen, and `setImmediate`, queued at the invoke, runs after that flush. So the stop is
 * whichever comes first — except that immediates the call queued behind that one (node-redis's
 * write) run first: while a stop waits, `setImmediate` is wrapped to count them, and the stop
 * comes after the last of them has run or been cleared, in the same check phase (no poll phase
 * between, so no reply is read).
 */
import { Socket } from "node:net";
import { promisify } from "node:util";

/** The real `setImmediate`, before `hook` counts others' immediates. */
const realImmediate = globalThis.setImmediate;
const waiting = new Set<() => void>();
let hooked = false;
const resolved = Promise.resolve();
/** Immediates queued by others while a stop waited, not run (or cleared) yet. */
const othersPending = new Set<NodeJS.Immediate>();

/** Runs the waiting stops once the code now running has run (its microtasks, then a tick). */
function fireAfterThisCode(): void {
  if (waiting.size === 0) return;
  const due = [...waiting];
  waiting.clear();
  resolved.then(() =>
    process.nextTick(() => {
      for (const f of due) f();
    }),
  );
}

function onWrite(socket: Socket): void {
  if (socket.remotePort === undefined) return; // stdio pipes are sockets too
  fireAfterThisCode();
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  const write = Socket.prototype.write;
  Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
    const result = write.apply(this, args);
    onWrite(this);
    return result;
  } as Socket["write"];
  const counted = <A extends unknown[]>(callback: (...args: A) => void, ...args: A): NodeJS.Immediate => {
    if (waiting.size === 0) return realImmediate(callback, ...args);
    const immediate = realImmediate(() => {
      othersPending.delete(immediate);
      try {
        callback(...args);
      } finally {
        if (othersPending.size === 0) fireAfterThisCode();
      }
    });
    othersPending.add(immediate);
    return immediate;
  };
  // util.promisify(setImmediate) and timers/promises keep working as before.
  Object.defineProperty(counted, promisify.custom, { value: realImmediate[promisify.custom as never] });
  globalThis.setImmediate = counted as typeof setImmediate;
  const clear = globalThis.clearImmediate;
  globalThis.clearImmediate = ((immediate: NodeJS.Immediate | undefined) => {
    if (immediate !== undefined && othersPending.delete(immediate) && othersPending.size === 0)
      fireAfterThisCode();
    clear(immediate);
  }) as typeof clearImmediate;
}

/**
 * Calls `then` once, at the earlier of: just after the next TCP write and the code it came
 * from (see above), or a `setImmediate` from now and the immediates queued behind it meanwhile.
 */
export function afterNextWrite(then: () => void): void {
  hook();
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    waiting.delete(once);
    then();
  };
  // Immediates queued before this one run before it, or never: only later ones count.
  if (waiting.size === 0) othersPending.clear();
  waiting.add(once);
  realImmediate(() => {
    if (othersPending.size === 0) once();
    // Else the last of them to run (or be cleared) stops it; at the latest, the next turn's
    // check phase does (one cleared through another API than the global clearImmediate).
    else realImmediate(once);
  });
}
