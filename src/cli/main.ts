#!/usr/bin/env node
/**
 * The `lockcheck` command. Each subcommand lives in its own file under commands/ and exports
 * a function that builds its commander `Command`; this file only assembles them.
 *
 * Exit codes, shared by every command: 0 valid / all expectations met, 1 a violation was
 * found (or an expectation unmet), 2 unknown verdict or bad input.
 */
import { readFileSync } from "node:fs";
import { Command, type CommanderError } from "commander";
import { MODULE_PREFIX } from "../api/catalog.js";
import { moduleTargetName } from "../api/target-arg.js";
import { turnOffPretenuring } from "../util/v8-heap.js";
import { commands } from "./commands/index.js";
import { printInputError } from "./errors.js";

// Before any simulation runs: see v8-heap.ts (faster fuzzing, a third less memory).
turnOffPretenuring();

/** lockcheck's own package.json: two folders up from src/cli/ (sources), three from dist/src/cli/. */
function packageVersion(): string {
  for (const up of ["../../package.json", "../../../package.json"]) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === "lockcheck" && pkg.version) return pkg.version;
    } catch {
      // not at this level; try the next
    }
  }
  return "unknown";
}

const program = new Command("lockcheck")
  .description(
    "Jepsen-style checker for distributed locks: generate workloads with pauses, clock faults and " +
      "partitions, run them against lock implementations, record histories, and flag stale writes.",
  )
  .addHelpText(
    "after",
    [
      "",
      "Start here:",
      "  lockcheck fuzz --target sim:lease --runs 500 --seed 7   find, shrink and save a stale write",
      "  lockcheck replay lockcheck-out/<run>/schedule.json      reproduce a saved counterexample",
      "  lockcheck check history.jsonl                           check a recorded history",
      "",
      "Exit codes: 0 valid, 1 violation found, 2 unknown verdict or bad input.",
      "Each command has its own --help.",
    ].join("\n"),
  )
  .version(packageVersion(), "-V, --version")
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride(usageErrorExit);

// commander's own usage errors (unknown option, missing argument, an option value its parser
// refused) are bad input: exit 2. Subcommands added with addCommand do not inherit this.
function usageErrorExit(e: CommanderError): never {
  process.exit(e.exitCode === 0 ? 0 : 2);
}

for (const make of commands) {
  const command = make();
  command.exitOverride(usageErrorExit).showHelpAfterError("(run with --help for usage)");
  program.addCommand(command);
}

/**
 * Before a command's action: a `--target module:…` value becomes the name the module
 * registers (docs/custom-locks.md), or the command exits 2 with the problem on stderr.
 */
async function resolveModuleTargetOption(command: Command): Promise<void> {
  const spec = command.getOptionValue("target");
  if (typeof spec !== "string" || !spec.startsWith(MODULE_PREFIX)) return;
  const r = await moduleTargetName(
    spec,
    command.name(),
    process.cwd(),
    command.getOptionValue("real") === true,
  );
  if (r.ok) command.setOptionValue("target", r.value);
  else process.exit(printInputError(r.error));
}

program.hook("preAction", (_program, action) => resolveModuleTargetOption(action));

await program.parseAsync(process.argv);
