/** Importing a user's module (a gate config, a custom lock), JavaScript or TypeScript. */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { extname } from "node:path";
import { pathToFileURL } from "node:url";
import { err, type InputError, ok, type Result } from "../result.js";

/**
 * Imports a module (a config or a custom lock). `.ts`/`.mts`/`.cts` files go through tsx
 * when it is installed (it is a dev dependency of most TypeScript projects); otherwise Node
 * must be able to import them itself (Node ≥ 22.18 strips types by default), or they must be
 * compiled to .js first.
 */
export async function importModule(path: string): Promise<Result<Record<string, unknown>, InputError>> {
  // Node's own message would name lockcheck's file as the importer: say it plainly.
  if (!existsSync(path)) return err({ file: path, message: "cannot import: no such file" });
  const url = pathToFileURL(path).href;
  const isTs = [".ts", ".mts", ".cts"].includes(extname(path));
  try {
    if (isTs) {
      const tsx = await import("tsx/esm/api").catch(() => null);
      if (tsx !== null) return ok((await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>);
    }
    return ok((await import(url)) as Record<string, unknown>);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const hint =
      isTs && code === "ERR_UNKNOWN_FILE_EXTENSION"
        ? " (install tsx — npm i -D tsx — or compile it to .js: this Node cannot import TypeScript)"
        : code === "ERR_MODULE_NOT_FOUND" && /Cannot find package/.test((e as Error).message)
          ? " (a module's imports resolve from its own folder upwards: install the package in the project that holds it)"
          : "";
    // Node says SyntaxError; vite (a module imported under vitest) words it otherwise.
    const syntax = (e as Error).name === "SyntaxError" || /syntax/i.test((e as Error).message);
    const at = syntax && !isTs ? syntaxErrorAt(path) : null;
    const message = `cannot import: ${(e as Error).message}${hint}`;
    if (at === null) return err({ file: path, message });
    return err({
      file: path,
      line: at.line,
      message: at.excerpt === "" ? message : `${message}\n${at.excerpt}`,
    });
  }
}

/**
 * Where a JavaScript module's syntax error is. Node 20's import() throws a SyntaxError without
 * a line; `node --check` prints it, as `file:line`, the line and a caret under the spot.
 */
function syntaxErrorAt(path: string): { line: number; excerpt: string } | null {
  const r = spawnSync(process.execPath, ["--check", path], { encoding: "utf8", timeout: 10_000 });
  const lines = (r.stderr ?? "").split("\n");
  const m = /:(\d+)$/.exec(lines[0] ?? "");
  if (r.status === 0 || m === null) return null;
  const excerpt = lines
    .slice(1, 3)
    .filter((l) => l.trim() !== "")
    .map((l) => `  ${l}`)
    .join("\n");
  return { line: Number(m[1]), excerpt };
}

/**
 * A module's default export. A TypeScript file outside an ESM package is compiled as
 * CommonJS, and its `export default` then arrives one level deeper (`default.default`).
 */
export function defaultExport(mod: Record<string, unknown>): unknown {
  const d = mod.default;
  if (typeof d === "object" && d !== null && "default" in d) {
    const keys = Object.keys(d).filter((k) => k !== "__esModule");
    if ((d as { __esModule?: unknown }).__esModule === true || (keys.length === 1 && keys[0] === "default")) {
      return (d as { default: unknown }).default;
    }
  }
  return d;
}

/** A module's named exports, looking through a CommonJS-compiled TypeScript module's wrapper. */
export function namedExports(mod: Record<string, unknown>): Record<string, unknown> {
  const d = mod.default;
  if (typeof d === "object" && d !== null && (d as { __esModule?: unknown }).__esModule === true) {
    return d as Record<string, unknown>;
  }
  return mod;
}
