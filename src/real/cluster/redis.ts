/**
 * Standalone redis-server processes on loopback: the lock servers of `redis:*` targets (1 for
 * a lease, 5 for Redlock) and the protected resource. Each has its own free port, its own
 * temp dir, no persistence (a restart comes back empty, like a crashed cache) and, when the
 * run has clock faults, the LD_PRELOAD clock shim with its own clock file.
 */
import { join } from "node:path";
import { err, ok, type Result } from "../../result.js";
import { type ManagedProcess, type ServerProcess, spawnManaged } from "../hygiene/managed.js";
import type { Reaper } from "../hygiene/reaper.js";
import { type ClockFile, createClockFile } from "../shim/clock-file.js";
import { freePort, LOOPBACK, redisPing, waitUntil } from "./net.js";

export interface RedisNode {
  /** Schedule name: "server:N" or "resource". */
  readonly name: string;
  readonly port: number;
  readonly dir: string;
  /** The node's wall-clock control, when the shim is loaded. */
  readonly clock: ClockFile | null;
  /** The running incarnation; null while crashed. */
  current(): ServerProcess | null;
  /** SIGKILL (after SIGCONT); the node stays down until `restart`. */
  crash(): Promise<void>;
  /** Starts a fresh, empty server on the same port. */
  restart(): Promise<Result<void, string>>;
  stop(): Promise<void>;
}

export interface RedisNodeOptions {
  name: string;
  binary: string;
  /** Directory for this node's log and clock file (created by the caller). */
  dir: string;
  /** Path of the built clock shim, or null to run without one. */
  clockShim: string | null;
  reaper: Reaper | null;
  /**
   * Keep data across a crash (fsynced append-only file): for the resource, which must not
   * forget the highest token it accepted. Lock servers run without persistence.
   */
  durable?: boolean;
  startTimeoutMs?: number;
}

const MAX_PORT_ATTEMPTS = 3;

function serverArgs(port: number, dir: string, durable: boolean): string[] {
  return [
    "--port",
    String(port),
    "--bind",
    LOOPBACK,
    "--save",
    "",
    "--appendonly",
    durable ? "yes" : "no",
    "--appendfsync",
    "always",
    "--dir",
    dir,
    "--daemonize",
    "no",
    "--logfile",
    join(dir, "redis.log"),
    // Redis rewrites its process title; keep the node's dir (which names the run) in it, so
    // the processes of a run can be found by their command line (tests, diagnostics).
    "--proc-title-template",
    `{title} {listen-addr} {server-mode} ${dir}`,
  ];
}

async function launch(
  opts: RedisNodeOptions,
  port: number,
  clock: ClockFile | null,
): Promise<Result<ManagedProcess, string>> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (opts.clockShim !== null && clock !== null) {
    env.LD_PRELOAD = opts.clockShim;
    env.LOCKCHECK_CLOCK_FILE = clock.path;
  }
  const proc = spawnManaged(
    {
      label: `redis ${opts.name}`,
      command: opts.binary,
      args: serverArgs(port, opts.dir, opts.durable === true),
      env,
    },
    opts.reaper,
  );
  const problem = await waitUntil(() => redisPing(port, 200), {
    timeoutMs: opts.startTimeoutMs ?? 10_000,
    intervalMs: 10,
    giveUp: () => (proc.hasExited() ? "exited during start-up" : null),
  });
  if (problem === null) return ok(proc);
  await proc.kill();
  return err(`redis ${opts.name} on port ${port}: ${problem} (log: ${join(opts.dir, "redis.log")})`);
}

export async function startRedisNode(opts: RedisNodeOptions): Promise<Result<RedisNode, string>> {
  const clock = opts.clockShim !== null ? createClockFile(join(opts.dir, "clock")) : null;
  let lastError = "";
  for (let attempt = 0; attempt < MAX_PORT_ATTEMPTS; attempt++) {
    const port = await freePort();
    const started = await launch(opts, port, clock);
    if (!started.ok) {
      lastError = started.error;
      continue;
    }
    let proc: ManagedProcess | null = started.value;
    const node: RedisNode = {
      name: opts.name,
      port,
      dir: opts.dir,
      clock,
      current: () => proc,
      async crash() {
        const p = proc;
        proc = null;
        await p?.kill();
      },
      async restart() {
        if (proc !== null) return ok(undefined);
        const again = await launch(opts, port, clock);
        if (!again.ok) return again;
        proc = again.value;
        return ok(undefined);
      },
      async stop() {
        await node.crash();
        clock?.close();
      },
    };
    return ok(node);
  }
  clock?.close();
  return err(lastError);
}
