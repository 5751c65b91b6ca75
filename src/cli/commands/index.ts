import type { Command } from "commander";
import { reportCommand } from "./report.js";

/** Every subcommand of `lockcheck`, in the order `--help` lists them. */
export const commands: Array<() => Command> = [reportCommand];
