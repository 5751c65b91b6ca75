/**
 * The import graph of lockcheck's own code, folded to folders ("units"), for the architecture
 * test. Imports are found by pattern, not by a parser: static `import … from`, `export … from`,
 * side-effect `import "…"`, dynamic `import("…")` and `new URL("…", import.meta.url)` with a
 * relative literal. An import written inside a comment counts too (it errs towards reporting);
 * one built from a variable (a user's module) is not an edge of the code base.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/** One import of one file by another, as repository-relative paths with "/". */
export interface FileImport {
  from: string;
  to: string;
}

const SPECIFIER =
  /\bfrom\s*["'](\.{1,2}\/[^"']+)["']|\bimport\s*\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)|\bimport\s*["'](\.{1,2}\/[^"']+)["']|\bnew\s+URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

const posix = (path: string): string => path.split(sep).join("/");

/** Every import between .ts files under `roots` (folders relative to `repo`). */
export function fileImports(repo: string, roots: readonly string[]): FileImport[] {
  const imports: FileImport[] = [];
  for (const root of roots) {
    for (const file of sourceFiles(join(repo, root))) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(SPECIFIER)) {
        const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
        const target = resolve(dirname(file), spec).replace(/\.js$/, ".ts");
        if (!existsSync(target)) continue; // an asset or data file, not code
        imports.push({ from: posix(relative(repo, file)), to: posix(relative(repo, target)) });
      }
    }
  }
  return imports;
}

/**
 * The unit a file belongs to: a folder of src/ with everything under it (`src/real`), a file
 * directly in src/ (`src/result.ts`), or a top-level folder.
 */
export function unitOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "src") return parts.length > 2 ? `src/${parts[1]}` : file;
  return parts[0]!;
}

/** Unit → unit → the file imports that make that edge (imports within a unit left out). */
export type UnitGraph = Map<string, Map<string, FileImport[]>>;

export function unitGraph(imports: readonly FileImport[]): UnitGraph {
  const graph: UnitGraph = new Map();
  const node = (u: string) => {
    let edges = graph.get(u);
    if (edges === undefined) {
      edges = new Map();
      graph.set(u, edges);
    }
    return edges;
  };
  for (const i of imports) {
    const a = unitOf(i.from);
    const b = unitOf(i.to);
    const edges = node(a);
    node(b);
    if (a === b) continue;
    const list = edges.get(b) ?? [];
    list.push(i);
    edges.set(b, list);
  }
  return graph;
}

/** Strongly connected components (Tarjan) of more than one unit: each is a cycle of folders. */
export function cyclicComponents(graph: UnitGraph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (u: string): void => {
    index.set(u, next);
    low.set(u, next);
    next++;
    stack.push(u);
    onStack.add(u);
    for (const v of graph.get(u)?.keys() ?? []) {
      if (!index.has(v)) {
        visit(v);
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      } else if (onStack.has(v)) low.set(u, Math.min(low.get(u)!, index.get(v)!));
    }
    if (low.get(u) === index.get(u)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== u);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const u of [...graph.keys()].sort()) if (!index.has(u)) visit(u);
  return found;
}

/** One cycle through `component`'s first unit, as "a → b → … → a" lines naming a file import per edge. */
export function describeCycle(graph: UnitGraph, component: readonly string[]): string {
  const inside = new Set(component);
  const start = component[0]!;
  // Breadth-first from start back to start, staying inside the component.
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const u = queue.shift()!;
    for (const v of [...(graph.get(u)?.keys() ?? [])].sort()) {
      if (!inside.has(v) || previous.has(v)) continue;
      previous.set(v, u);
      if (v === start) queue.length = 0;
      else queue.push(v);
    }
  }
  const path = [start];
  for (let u = previous.get(start)!; u !== start; u = previous.get(u)!) path.unshift(u);
  path.unshift(start);
  return path
    .slice(1)
    .map((to, i) => {
      const from = path[i]!;
      const example = graph.get(from)!.get(to)![0]!;
      return `  ${from} → ${to}   (${example.from} imports ${example.to})`;
    })
    .join("\n");
}
