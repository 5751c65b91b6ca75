/**
 * Which real targets run a library adapter (library-lock.ts), by lock name → the module's file
 * URL. A real run hands its client processes the lock's name; for these names each client
 * imports the module and drives the library's own client instead of one of lockcheck's lock
 * algorithms. Filled when a module is loaded (module-target.ts), read by src/real/clients.ts.
 */
const modules = new Map<string, string>();

export function registerLibraryModule(name: string, moduleUrl: string): void {
  const known = modules.get(name);
  if (known !== undefined && known !== moduleUrl)
    throw new RangeError(`registerLibraryModule: "${name}" already comes from ${known}`);
  modules.set(name, moduleUrl);
}

/** The file URL of the library adapter named `name`, or undefined when it is not one. */
export function libraryModuleUrl(name: string): string | undefined {
  return modules.get(name);
}
