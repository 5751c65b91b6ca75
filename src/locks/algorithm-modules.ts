/**
 * Which lock algorithms come from a user's module, by name → the module's file URL. A real
 * run hands its client processes the algorithm's name; for these names the clients import
 * the module instead of looking the name up among lockcheck's own (src/locks/).
 * Filled when a module target is loaded (src/custom/module-target.ts), read by src/real/clients.ts.
 */
const modules = new Map<string, string>();

/** Records that algorithm `name` is the default export of the module at `moduleUrl`. */
export function registerAlgorithmModule(name: string, moduleUrl: string): void {
  const known = modules.get(name);
  if (known !== undefined && known !== moduleUrl)
    throw new RangeError(`registerAlgorithmModule: "${name}" already comes from ${known}`);
  modules.set(name, moduleUrl);
}

/** The file URL of the module algorithm `name` comes from, or undefined for a built-in one. */
export function algorithmModuleUrl(name: string): string | undefined {
  return modules.get(name);
}
