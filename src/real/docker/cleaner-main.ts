/**
 * Child process that removes one run's containers and networks (cleanup.ts), in two modes:
 *
 *   cleaner-main --run ID            remove them now, then exit (0: nothing left, 1: some
 *                                    object could not be removed, 2: no engine)
 *   cleaner-main --run ID --watch    print "ready", then wait: a line "bye" on stdin means
 *                                    the run was torn down cleanly (exit without touching
 *                                    anything); end-of-file without "bye" means lockcheck died
 *                                    (even by SIGKILL: the kernel closes the pipe), so remove them
 *
 * The first mode is what the exit and signal handlers run synchronously (spawnSync), because
 * the Docker API is asynchronous and an exit handler cannot wait for promises. The second is
 * the watcher a run starts in its own session, so a Ctrl-C aimed at lockcheck's process group
 * does not take it down before it can help. The engine address comes from DOCKER_HOST.
 */

import { removeObjects } from "./cleanup.js";
import { connectEngine } from "./engine.js";

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function clean(runId: string): Promise<number> {
  const docker = await connectEngine();
  if (!docker.ok) {
    process.stderr.write(`lockcheck: cannot remove the containers of run ${runId}: ${docker.error}\n`);
    return 2;
  }
  const report = await removeObjects(docker.value, { runId, includeLive: true });
  for (const f of report.failures) {
    process.stderr.write(`lockcheck: could not remove ${f.object.kind} ${f.object.name}: ${f.error}\n`);
  }
  return report.failures.length === 0 ? 0 : 1;
}

function watch(runId: string): void {
  let pending = "";
  let dismissed = false;
  process.on("SIGINT", () => {});
  process.on("SIGHUP", () => {});
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    pending += chunk;
    if (pending.split("\n").includes("bye")) dismissed = true;
  });
  process.stdin.on("end", () => {
    if (dismissed) process.exit(0);
    void clean(runId).then((code) => process.exit(code));
  });
  process.stdout.write("ready\n");
}

const runId = argValue("--run");
if (runId === undefined || runId === "") {
  process.stderr.write("usage: cleaner-main --run ID [--watch]\n");
  process.exit(2);
}
if (process.argv.includes("--watch")) watch(runId);
else process.exitCode = await clean(runId);
