/**
 * Which process opened a loopback TCP connection, seen from the accepting side: the dialer's
 * socket is the one in /proc/net/tcp whose local port is the connection's remote port and whose
 * remote port is ours; its inode names it among the processes' open files (/proc/<pid>/fd).
 * Linux only (`canTellSocketOwners`); processes of our own, so no privilege is needed.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync } from "node:fs";

export function canTellSocketOwners(): boolean {
  return existsSync("/proc/net/tcp");
}

/** The inode of the IPv4 socket from local port `fromPort` to remote port `toPort`, or null. */
function socketInode(fromPort: number, toPort: number): string | null {
  let table: string;
  try {
    table = readFileSync("/proc/net/tcp", "utf8");
  } catch {
    return null;
  }
  const from = `:${fromPort.toString(16).toUpperCase().padStart(4, "0")}`;
  const to = `:${toPort.toString(16).toUpperCase().padStart(4, "0")}`;
  for (const line of table.split("\n")) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    const cols = line.trim().split(/\s+/);
    if (cols.length > 9 && cols[1]!.endsWith(from) && cols[2]!.endsWith(to)) return cols[9]!;
  }
  return null;
}

function holdsSocket(pid: number, inode: string): boolean {
  const wanted = `socket:[${inode}]`;
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === wanted) return true;
    } catch {
      // closed while we looked
    }
  }
  return false;
}

/**
 * The index in `pids` of the process that dialed the connection we accepted (its remote port
 * `dialerPort`, our local port `ourPort`), or -1 if none of them holds it.
 */
export function socketOwner(dialerPort: number, ourPort: number, pids: readonly (number | null)[]): number {
  const inode = socketInode(dialerPort, ourPort);
  if (inode === null || inode === "0") return -1;
  return pids.findIndex((pid) => pid !== null && holdsSocket(pid, inode));
}
