/**
 * The links between etcd members started as local processes, through lockcheck: each member
 * advertises a peer address that is a proxy of ours, which forwards to the member's own peer
 * port. A connection is told apart by who dialed it (socket-owner.ts), so each directed pair of
 * members (x dials y) has a link of its own that a partition can cut or black-hole, as the
 * client links' proxies do. A connection whose dialer cannot be told is forwarded untouched.
 *
 * A proxy starts listening only once its member's own peer port does: until then a peer's
 * dial is refused, as it would be without us. (Accepted and closed at once instead, etcd's
 * members took 1.2–2.4 s to form a cluster rather than about 0.3 s.)
 */
import { createServer, type Server, Socket } from "node:net";
import { createLink, type Link } from "../proxy/link-proxy.js";
import { canTellSocketOwners, socketOwner } from "../proxy/socket-owner.js";
import { freePort, LOOPBACK } from "./net.js";

export interface PeerCut {
  mode: "cut" | "blackhole";
  oneWay: boolean;
}

export interface PeerLinks {
  /** The peer port member `i` advertises (our proxy's). */
  advertisedPort(i: number): number;
  /**
   * Cuts the links between every member of `a` and every member of `b` until the returned heal:
   * both ways (mode "cut": connections dropped and refused; "blackhole": bytes held), or with
   * `oneWay` only what members of `a` send to members of `b` (held).
   */
  cut(a: readonly number[], b: readonly number[], how: PeerCut): () => void;
  /** Undoes every cut still in force (between runs). */
  reset(): void;
  /** Why a proxy could not listen (its port was taken meanwhile), or null. */
  problem(): string | null;
  close(): Promise<void>;
}

/** Whether this machine can tell members' connections apart (Linux's /proc). */
export const peerLinksSupported = canTellSocketOwners;

/**
 * Proxies for `peerPorts.length` members; `pids()` gives each member's process id now (null:
 * not running), read at every new connection, so a restarted member is still known.
 */
export async function startPeerLinks(
  peerPorts: readonly number[],
  pids: () => readonly (number | null)[],
): Promise<PeerLinks> {
  const n = peerPorts.length;
  // links[x][y]: connections member x dialed to member y; links[y][y]: dialer unknown.
  const links: Link[][] = Array.from({ length: n }, () => peerPorts.map((port) => createLink(port)));
  const ports = await Promise.all(peerPorts.map(() => freePort()));
  const servers: Server[] = peerPorts.map((_, y) =>
    createServer({ noDelay: true }, (socket) => {
      const x = socketOwner(socket.remotePort ?? 0, socket.localPort ?? 0, pids());
      links[x >= 0 && x !== y ? x : y]![y]!.accept(socket);
    }),
  );
  let closed = false;
  let problem: string | null = null;
  const listenOnceUp = async (y: number): Promise<void> => {
    while (!closed && !(await accepts(peerPorts[y]!))) await new Promise((r) => setTimeout(r, 20));
    if (closed) return;
    await new Promise<void>((resolve) => {
      // Kept for the server's life: an error after listening (an accept that failed) is
      // reported the same way rather than thrown.
      servers[y]!.on("error", (e) => {
        problem ??= `peer link of member ${y}: ${e.message}`;
        resolve();
      });
      servers[y]!.listen(ports[y], LOOPBACK, () => resolve());
    });
  };
  const listening = peerPorts.map((_, y) => listenOnceUp(y));
  const active = new Set<() => void>();
  return {
    advertisedPort: (i) => ports[i]!,
    problem: () => problem,
    cut(a, b, how) {
      const releases: (() => void)[] = [];
      for (const x of a) {
        for (const y of b) {
          if (x === y) continue;
          if (how.oneWay) {
            // x's bytes to y: up the connections x dialed to y, down those y dialed to x.
            releases.push(links[x]![y]!.hold("up"), links[y]![x]!.hold("down"));
            continue;
          }
          for (const link of [links[x]![y]!, links[y]![x]!]) {
            if (how.mode === "cut") releases.push(link.cut());
            else releases.push(link.hold("up"), link.hold("down"));
          }
        }
      }
      const release = (): void => {
        if (!active.delete(release)) return;
        for (const r of releases) r();
      };
      active.add(release);
      return release;
    },
    reset() {
      for (const release of [...active]) release();
    },
    async close() {
      closed = true;
      active.clear();
      await Promise.all(listening);
      for (const row of links) for (const link of row) link.dropAll();
      await Promise.all(
        servers.map(
          (s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve())),
        ),
      );
    },
  };
}

/** Whether something accepts connections on 127.0.0.1:`port` now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = new Socket();
    const done = (up: boolean): void => {
      sock.destroy();
      resolve(up);
    };
    sock.setTimeout(500, () => done(false));
    sock.once("error", () => done(false));
    sock.connect(port, LOOPBACK, () => done(true));
  });
}
