/**
 * `--target module:./my-lock.js` on any command: before the command line is parsed, each such
 * module is loaded and registered as a target, and the argument is replaced by the target's
 * registered name (`sim:my-lease`, `plain:my-lock`), so every command finds it by name.
 * `lockcheck run` takes only real-server targets: there it becomes the module's real target
 * (`redis:my-lease`, `etcd:my-lock`).
 */
import { formatInputError, type InputError } from "../result.js";
import { loadModule, MODULE_PREFIX } from "./module-target.js";

/**
 * The subcommand of `argv`: its first word that is not an option, after the node binary and
 * script when `argv` is a full process.argv.
 */
function subcommand(argv: readonly string[]): string | undefined {
  const first = argv[0] ?? "";
  const start = first === process.execPath || /(^|[\\/])node(\.exe)?$/.test(first) ? 2 : 0;
  return argv.slice(start).find((a) => !a.startsWith("-"));
}

/** `argv` with module targets replaced by their names, or the first module that failed to load. */
export async function preloadModuleTargets(
  argv: readonly string[],
  baseDir: string = process.cwd(),
): Promise<{ ok: true; argv: string[] } | { ok: false; error: InputError }> {
  const out = [...argv];
  const wantsReal = subcommand(argv) === "run";
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
    const t = await loadModule(spec, baseDir);
    if (!t.ok) return { ok: false, error: { ...t.error, field: t.error.field ?? "--target" } };
    if (!wantsReal) {
      rewrite(t.value.target.name);
    } else if (t.value.real !== null) {
      rewrite(t.value.real.name);
    } else {
      return {
        ok: false,
        error: {
          field: "--target",
          message: `${spec} (${t.value.target.name}) has no real-server target: only a LockAlgorithm with servers "redis" or "etcd" runs on real servers; use fuzz for it`,
        },
      };
    }
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
