/**
 * The links between etcd members started as local processes, through lockcheck: each member
 * advertises a peer address that is a proxy of ours, which forwards to the member's own peer
 * port. A connection is told apart by who dialed it (socket-owner.ts), so each directed pair of
 * members (x dials y) has a link of its own that a partition can cut or black-hole, as the
 * client links' proxies do. A connection whose dialer cannot be told is forwarded untouched.
 */
import { createServer, type Server } from "node:net";
import { createLink, type Link } from "../proxy/link-proxy.js";
import { canTellSocketOwners, socketOwner } from "../proxy/socket-owner.js";
import { LOOPBACK } from "./net.js";

export interface PeerLinks {
  /** The peer port member `i` advertises (our proxy's). */
  advertisedPort(i: number): number;
  /**
   * Cuts the links between every member of `a` and every member of `b`, both ways (mode "cut":
   * connections dropped and refused; "blackhole": bytes held until the heal).
   */
  cut(a: readonly number[], b: readonly number[], mode: "cut" | "blackhole"): () => void;
  /** Undoes every cut still in force (between runs). */
  reset(): void;
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
  const servers: Server[] = [];
  const ports: number[] = [];
  for (let y = 0; y < n; y++) {
    const server = createServer({ noDelay: true }, (socket) => {
      const x = socketOwner(socket.remotePort ?? 0, socket.localPort ?? 0, pids());
      links[x >= 0 && x !== y ? x : y]![y]!.accept(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, LOOPBACK, () => resolve());
    });
    const addr = server.address();
    ports.push(typeof addr === "object" && addr !== null ? addr.port : 0);
    servers.push(server);
  }
  const active = new Set<() => void>();
  return {
    advertisedPort: (i) => ports[i]!,
    cut(a, b, mode) {
      const releases: (() => void)[] = [];
      for (const x of a) {
        for (const y of b) {
          if (x === y) continue;
          for (const link of [links[x]![y]!, links[y]![x]!]) {
            if (mode === "cut") releases.push(link.cut());
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
      active.clear();
      for (const row of links) for (const link of row) link.dropAll();
      await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    },
  };
}
