import type { Command } from "commander";

/** Every subcommand of `lockcheck`, in the order `--help` lists them. */
export const commands: Array<() => Command> = [];
