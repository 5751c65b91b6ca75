/**
 * A TCP proxy for one client↔server link: the client connects to the proxy's loopback port
 * and every byte to and from the server passes through here, where faults act on it.
 *
 * Per link, and per direction where it makes sense:
 * - cut: existing connections are dropped and new ones are closed on accept, as when a route
 *   disappears; requests in flight are lost (the client cannot know whether they arrived).
 *   (Closed with destroy(), not resetAndDestroy(): a pending RST request can keep Node's exit
 *   cleanup spinning forever when the socket is also destroyed from its other side.);
 * - hold (black hole) in one direction: bytes are accepted but not forwarded until the fault
 *   ends, exactly like a partition that drops packets while TCP keeps retransmitting; a
 *   request held long enough times out at the client, and may still arrive after the heal;
 * - delay in one direction: every chunk is forwarded `ms` later than it arrived, in order.
 * A client that closes its connection (it exited, or was killed) does not take back what it
 * sent: the bytes already in the proxy still reach the server at their time, as packets on the
 * wire outlive their sender, and then the connection closes. A cut drops them.
 * Faults nest: each activation returns its own release, and the link is back to normal once
 * every active fault on it has been released.
 */
import { createServer, type Server, Socket } from "node:net";
import { LOOPBACK } from "../cluster/net.js";

/** "up": client → server; "down": server → client. */
export type Direction = "up" | "down";

export interface LinkProxy {
  /** The client side's address: connect here instead of the server. */
  readonly port: number;
  /** Drops every connection and refuses new ones until released. */
  cut(): () => void;
  /** Stops forwarding in `dir` (bytes wait in the proxy) until released. */
  hold(dir: Direction): () => void;
  /** Adds `ms` to every chunk in `dir` until released (the largest active delay applies). */
  delay(dir: Direction, ms: number): () => void;
  /** Number of connections currently open through the proxy. */
  connections(): number;
  /** True once no connection has bytes waiting to go to the server (held or delayed); false if some still wait after `withinMs`. */
  drained(withinMs: number): Promise<boolean>;
  close(): Promise<void>;
}

interface Pending {
  chunk: Buffer;
  dueAt: number;
}

/** One direction of one proxied connection: a FIFO released by due time, paused by holds. */
interface Pipe {
  queue: Pending[];
  timer: NodeJS.Timeout | null;
  out: Socket;
  /** Called once the queue is empty (the client left: then the connection closes). */
  onEmpty: (() => void) | null;
}

const DRAIN_POLL_MS = 10;

/** A link's faults and connections, without the listening socket: `accept` takes each connection. */
export interface Link extends Omit<LinkProxy, "port" | "close"> {
  /** Forwards a connection made to this link to the target, through the link's faults. */
  accept(client: Socket): void;
  /** Drops every open connection (the link stays usable). */
  dropAll(): void;
}

export function createLink(targetPort: number): Link {
  let cuts = 0;
  const holds: Record<Direction, number> = { up: 0, down: 0 };
  const delays: Record<Direction, number[]> = { up: [], down: [] };
  const open = new Set<{ client: Socket; server: Socket; pipes: Record<Direction, Pipe> }>();

  const currentDelay = (dir: Direction): number => Math.max(0, ...delays[dir]);

  const pump = (dir: Direction, pipe: Pipe): void => {
    if (pipe.timer !== null) {
      clearTimeout(pipe.timer);
      pipe.timer = null;
    }
    if (holds[dir] > 0) return;
    const now = Date.now();
    while (pipe.queue.length > 0 && pipe.queue[0]!.dueAt <= now) {
      const { chunk } = pipe.queue.shift()!;
      if (!pipe.out.destroyed) pipe.out.write(chunk);
    }
    if (pipe.queue.length > 0) {
      pipe.timer = setTimeout(() => pump(dir, pipe), pipe.queue[0]!.dueAt - now);
    } else pipe.onEmpty?.();
  };

  const pumpAll = (dir: Direction): void => {
    for (const c of open) pump(dir, c.pipes[dir]);
  };

  const dropAll = (): void => {
    for (const c of [...open]) {
      c.client.destroy();
      c.server.destroy();
    }
  };

  const accept = (client: Socket): void => {
    if (cuts > 0) {
      client.destroy();
      return;
    }
    client.pause();
    const upstream = new Socket();
    upstream.setNoDelay(true);
    const pipes: Record<Direction, Pipe> = {
      up: { queue: [], timer: null, out: upstream, onEmpty: null },
      down: { queue: [], timer: null, out: client, onEmpty: null },
    };
    const conn = { client, server: upstream, pipes };
    open.add(conn);
    const teardown = (): void => {
      if (!open.delete(conn)) return;
      for (const p of Object.values(pipes)) if (p.timer !== null) clearTimeout(p.timer);
      if (!client.destroyed) client.destroy();
      if (!upstream.destroyed) upstream.destroy();
    };
    const feed = (dir: Direction) => (chunk: Buffer) => {
      pipes[dir].queue.push({ chunk, dueAt: Date.now() + currentDelay(dir) });
      pump(dir, pipes[dir]);
    };
    // What the client sent is on its way: it still reaches the server before the connection closes.
    const clientGone = (): void => {
      if (pipes.up.queue.length === 0 || upstream.destroyed) teardown();
      else pipes.up.onEmpty = teardown;
    };
    client.on("data", feed("up"));
    upstream.on("data", feed("down"));
    client.on("error", clientGone);
    client.on("close", clientGone);
    upstream.on("error", teardown);
    upstream.on("close", teardown);
    upstream.connect(targetPort, LOOPBACK, () => client.resume());
  };

  const once = (release: () => void): (() => void) => {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      release();
    };
  };

  return {
    accept,
    dropAll,
    cut() {
      cuts++;
      dropAll();
      return once(() => {
        cuts--;
      });
    },
    hold(dir) {
      holds[dir]++;
      return once(() => {
        holds[dir]--;
        pumpAll(dir);
      });
    },
    delay(dir, ms) {
      delays[dir].push(ms);
      return once(() => {
        const i = delays[dir].indexOf(ms);
        if (i >= 0) delays[dir].splice(i, 1);
      });
    },
    connections: () => open.size,
    drained: (withinMs) =>
      new Promise<boolean>((resolve) => {
        const until = Date.now() + withinMs;
        const check = (): void => {
          if ([...open].every((c) => c.pipes.up.queue.length === 0)) resolve(true);
          else if (Date.now() >= until) resolve(false);
          else setTimeout(check, DRAIN_POLL_MS);
        };
        check();
      }),
  };
}

export async function startLinkProxy(targetPort: number): Promise<LinkProxy> {
  const link = createLink(targetPort);
  const server: Server = createServer({ noDelay: true }, (client) => link.accept(client));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, LOOPBACK, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr !== null ? addr.port : 0;
  return {
    port,
    cut: link.cut,
    hold: link.hold,
    delay: link.delay,
    connections: link.connections,
    drained: link.drained,
    close() {
      link.dropAll();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
