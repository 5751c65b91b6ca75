/**
 * `--target module:./my-lock.js` on any command: once the command line is parsed, before the
 * command runs, the module is loaded and registered as a target, and the option's value
 * becomes the target's registered name (`sim:my-lease`, `plain:my-lock`), so every command
 * finds it by name. `lockcheck run` takes only real-server targets: there it becomes the
 * module's real target (`redis:my-lease`, `etcd:my-lock`).
 */
import { formatInputError, type InputError, type Result } from "../result.js";
import { loadModule, MODULE_PREFIX } from "./module-target.js";

/** The name a `module:` target registers under for `command`, loading and registering it. */
export async function moduleTargetName(
  spec: string,
  command: string,
  baseDir: string = process.cwd(),
): Promise<Result<string, InputError>> {
  const t = await loadModule(spec, baseDir);
  if (!t.ok) return { ok: false, error: { ...t.error, field: t.error.field ?? "--target" } };
  if (command !== "run") return { ok: true, value: t.value.target.name };
  if (t.value.real !== null) return { ok: true, value: t.value.real.name };
  return {
    ok: false,
    error: {
      field: "--target",
      message: `${spec} (${t.value.target.name}) has no real-server target: only a LockAlgorithm with servers "redis" or "etcd" runs on real servers; use fuzz for it`,
    },
  };
}

/** What the hook needs of a parsed commander command. */
interface ParsedCommand {
  name(): string;
  getOptionValue(key: string): unknown;
  setOptionValue(key: string, value: unknown): unknown;
}

/**
 * For the CLI, before a command's action: a `--target module:…` value becomes the module's
 * registered name, or the command exits 2 with the problem on stderr.
 */
export async function resolveModuleTargetOption(command: ParsedCommand): Promise<void> {
  const spec = command.getOptionValue("target");
  if (typeof spec !== "string" || !spec.startsWith(MODULE_PREFIX)) return;
  const r = await moduleTargetName(spec, command.name());
  if (r.ok) {
    command.setOptionValue("target", r.value);
    return;
  }
  process.stderr.write(`error: ${formatInputError(r.error)}\n`);
  process.exit(2);
}
