/**
 * `--target module:./my-lock.js` on any command: before the command line is parsed, each such
 * module is loaded and registered as a target, and the argument is replaced by the target's
 * registered name (`sim:my-lease`, `plain:my-lock`), so every command finds it by name.
 */
import { formatInputError, type InputError } from "../result.js";
import { loadModuleTarget, MODULE_PREFIX } from "./module-target.js";

/** `argv` with module targets replaced by their names, or the first module that failed to load. */
export async function preloadModuleTargets(
  argv: readonly string[],
  baseDir: string = process.cwd(),
): Promise<{ ok: true; argv: string[] } | { ok: false; error: InputError }> {
  const out = [...argv];
  for (let i = 0; i < out.length; i++) {
    const arg = out[i]!;
    let spec: string | undefined;
    let rewrite: (name: string) => void = () => {};
    if (arg === "--target" && out[i + 1]?.startsWith(MODULE_PREFIX)) {
      spec = out[i + 1]!;
      const at = i + 1;
      rewrite = (name) => {
        out[at] = name;
      };
    } else if (arg.startsWith(`--target=${MODULE_PREFIX}`)) {
      spec = arg.slice("--target=".length);
      const at = i;
      rewrite = (name) => {
        out[at] = `--target=${name}`;
      };
    }
    if (spec === undefined) continue;
    const t = await loadModuleTarget(spec, baseDir);
    if (!t.ok) return { ok: false, error: { ...t.error, field: t.error.field ?? "--target" } };
    rewrite(t.value.name);
  }
  return { ok: true, argv: out };
}

/** For the CLI: the rewritten argv, or exit 2 with the problem on stderr. */
export async function argvWithModuleTargets(argv: readonly string[]): Promise<string[]> {
  const r = await preloadModuleTargets(argv);
  if (r.ok) return r.argv;
  process.stderr.write(`error: ${formatInputError(r.error)}\n`);
  process.exit(2);
}
