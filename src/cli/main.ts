#!/usr/bin/env node
/**
 * The `lockcheck` command. Each subcommand lives in its own file under commands/ and exports
 * a function that builds its commander `Command`; this file only assembles them.
 *
 * Exit codes, shared by every command: 0 valid / all expectations met, 1 a violation was
 * found (or an expectation unmet), 2 unknown verdict or bad input.
 */
import { Command } from "commander";
import { argvWithModuleTargets } from "../custom/preload.js";
import { commands } from "./commands/index.js";

const program = new Command("lockcheck")
  .description(
    "Jepsen-style checker for distributed locks: generate workloads with pauses, clock faults and\n" +
      "partitions, run them against lock implementations, record histories, and flag stale writes.",
  )
  .showHelpAfterError("(run with --help for usage)")
  .exitOverride((e) => {
    // commander's own usage errors (unknown option, missing argument) are bad input: exit 2.
    process.exit(e.exitCode === 0 ? 0 : 2);
  });

for (const make of commands) program.addCommand(make());

// `--target module:./my-lock.js` becomes the name the module registers (docs/custom-locks.md).
await program.parseAsync(await argvWithModuleTargets(process.argv));
