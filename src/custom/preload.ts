/**
 * `--target module:./my-lock.js` on any command: once the command line is parsed, before the
 * command runs, the module is loaded and registered as a target, and the option's value
 * becomes the target's registered name (the cli's hook in src/cli/main.ts) (`sim:my-lease`, `plain:my-lock`), so every command
 * finds it by name. `lockcheck run` takes only real-server targets: there it becomes the
 * module's real target (`redis:my-lease`, `etcd:my-lock`), and so it does for `fuzz --real`.
 */
import type { InputError, Result } from "../result.js";
import { loadModule } from "./module-target.js";

/** The name a `module:` target registers under for `command`, loading and registering it. */
export async function moduleTargetName(
  spec: string,
  command: string,
  baseDir: string = process.cwd(),
  real = false,
): Promise<Result<string, InputError>> {
  const t = await loadModule(spec, baseDir);
  if (!t.ok) return { ok: false, error: { ...t.error, field: t.error.field ?? "--target" } };
  if (command !== "run" && !real) return { ok: true, value: t.value.target.name };
  if (t.value.real !== null) return { ok: true, value: t.value.real.name };
  return {
    ok: false,
    error: {
      field: "--target",
      message: `${spec} (${t.value.target.name}) has no real-server target: only a LockAlgorithm with servers "redis" or "etcd" runs on real servers; ${command === "run" ? "use fuzz for it" : "fuzz it without --real"}`,
    },
  };
}
