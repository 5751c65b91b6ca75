/**
 * `lockcheck clean [--run ID] [--include-running] [--dry-run]`: removes the Docker containers
 * and networks lockcheck created and did not get to remove (e.g. after its watcher was killed
 * too, or the engine was down during teardown). It selects by label only (`lockcheck=1`,
 * src/real/docker/labels.ts), so nothing else on the engine is touched, and by default it
 * leaves alone the objects of runs whose lockcheck process is still running.
 *
 * Exit: 0 nothing of lockcheck's is left (or nothing was there), 2 no engine answers or
 * something could not be removed.
 */
import { Command } from "commander";
import { type CleanReport, cleanDocker, type FoundObject } from "../../api/clean.js";

interface CleanFlags {
  run?: string;
  includeRunning?: boolean;
  dryRun?: boolean;
}

function describe(o: FoundObject): string {
  const what =
    o.kind === "container"
      ? `container ${o.name}${o.node === undefined ? "" : ` (${o.node})`}`
      : `network ${o.name}`;
  return `${what}, run ${o.run}${o.live ? ", still running" : ""}`;
}

function summary(report: CleanReport): string {
  const count = (kind: FoundObject["kind"]): number => report.removed.filter((o) => o.kind === kind).length;
  return `removed ${count("container")} container(s) and ${count("network")} network(s)`;
}

export async function runClean(
  flags: CleanFlags,
  out: (line: string) => void,
  errOut: (line: string) => void,
): Promise<number> {
  const includeLive = flags.includeRunning === true;
  const cleaned = await cleanDocker({
    ...(flags.run === undefined ? {} : { runId: flags.run }),
    includeLive,
    dryRun: flags.dryRun === true,
  });
  if (!cleaned.ok) {
    errOut(`lockcheck clean: ${cleaned.error}`);
    return 2;
  }
  if (cleaned.value.kind === "dry-run") {
    const found = cleaned.value.found;
    for (const o of found) out(`${o.live && !includeLive ? "would keep" : "would remove"} ${describe(o)}`);
    if (found.length === 0) out("nothing of lockcheck's on this engine");
    return 0;
  }
  const report = cleaned.value.report;
  for (const o of report.removed) out(`removed ${describe(o)}`);
  for (const f of report.failures) errOut(`could not remove ${describe(f.object)}: ${f.error}`);
  if (report.skipped.length > 0) {
    out(
      `left ${report.skipped.length} object(s) of running lockcheck processes alone (--include-running removes them)`,
    );
  }
  out(summary(report));
  return report.failures.length === 0 ? 0 : 2;
}

export function cleanCommand(): Command {
  return new Command("clean")
    .description(
      "remove Docker containers and networks left behind by lockcheck (labelled lockcheck=1), nothing else",
    )
    .option("--run <id>", "only those of this run")
    .option("--include-running", "also those of lockcheck processes that are still running")
    .option("--dry-run", "list what would be removed, remove nothing")
    .addHelpText(
      "after",
      "\nThe engine is the local one (/var/run/docker.sock, or DOCKER_HOST=unix://…).\n" +
        "Exit status: 0 nothing of lockcheck's is left, 2 no engine answers or something could not be removed.",
    )
    .action(async (flags: CleanFlags) => {
      process.exitCode = await runClean(
        flags,
        (line) => process.stdout.write(`${line}\n`),
        (line) => process.stderr.write(`${line}\n`),
      );
    });
}
