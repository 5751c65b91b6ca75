import type { Command } from "commander";
import { checkCommand } from "./check.js";
import { cleanCommand } from "./clean.js";
import { fuzzCommand } from "./fuzz.js";
import { gateCommand } from "./gate.js";
import { mergeCommand } from "./merge.js";
import { replayCommand } from "./replay.js";
import { reportCommand } from "./report.js";
import { runCommand } from "./run.js";
import { shrinkCommand } from "./shrink.js";

/** Every subcommand of `lockcheck`, in the order `--help` lists them. */
export const commands: Array<() => Command> = [
  checkCommand,
  reportCommand,
  fuzzCommand,
  replayCommand,
  runCommand,
  shrinkCommand,
  gateCommand,
  mergeCommand,
  cleanCommand,
];
