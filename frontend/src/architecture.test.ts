// The folder rules of src/ (frontend/README.md, "Layout"), checked on the imports of every source file:
// no circle between top-level folders; the shared folders (api, lib, hooks, components, viz) import no
// feature folder; viz/ imports no React; d3 is imported only under viz/.

import ts from "typescript";
import { describe, expect, it } from "vitest";

/** Each feature owns its page, components, hooks and pure logic. */
const FEATURES = ["admin", "applications", "cluster", "clusters", "dashboard", "deploy", "deployments", "editor", "energy", "live", "migrate", "planner", "replay", "timeline"];
/** Feature-free code any feature may use. */
const SHARED = ["api", "components", "hooks", "lib", "viz"];
/** App.tsx and main.tsx: the shell's wiring, which may import anything. */
const ROOT = ".";

const REACT = /^(react|react-dom)(\/|$)|^@xyflow\/react(\/|$)/;
const D3 = /^d3(-[a-z]+)?(\/|$)/;

const sources = import.meta.glob<string>(["./**/*.ts", "./**/*.tsx"], { query: "?raw", import: "default", eager: true });

interface Import {
  file: string;
  folder: string;
  /** What the file names: a package, or a path relative to it. */
  specifier: string;
  /** The top-level folder a relative import lands in; null for a package. */
  target: string | null;
}

function folderOf(path: string): string {
  const slash = path.indexOf("/");
  return slash === -1 ? ROOT : path.slice(0, slash);
}

/** `specifier` relative to `file`, as a path under src/ ("editor/dagDocument"). */
function resolve(file: string, specifier: string): string {
  const parts = file.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "..") parts.pop();
    else if (part !== ".") parts.push(part);
  }
  return parts.join("/");
}

const imports: Import[] = Object.entries(sources).flatMap(([key, text]) => {
  const file = key.replace(/^\.\//, "");
  return ts.preProcessFile(text, true, true).importedFiles.map(({ fileName: specifier }) => ({
    file,
    folder: folderOf(file),
    specifier,
    target: specifier.startsWith(".") ? folderOf(resolve(file, specifier)) : null,
  }));
});

/** Folder → the other folders it imports, and through which files. */
function folderGraph(): Map<string, Map<string, string[]>> {
  const graph = new Map<string, Map<string, string[]>>();
  for (const i of imports) {
    if (i.target === null || i.target === i.folder) continue;
    const edges = graph.get(i.folder) ?? new Map<string, string[]>();
    graph.set(i.folder, edges);
    edges.set(i.target, [...(edges.get(i.target) ?? []), `${i.file} → ${i.specifier}`]);
  }
  return graph;
}

/** Every circle between folders, each once, as "a → b → a". */
function folderCycles(graph: Map<string, Map<string, string[]>>): string[] {
  const cycles = new Set<string>();
  const walk = (path: string[]) => {
    const last = path[path.length - 1]!;
    for (const next of graph.get(last)?.keys() ?? []) {
      const at = path.indexOf(next);
      if (at === -1) walk([...path, next]);
      else if (at === 0) {
        // Written from its smallest folder, so each circle is listed once.
        const loop = path.slice();
        const start = loop.indexOf([...loop].sort()[0]!);
        const turned = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.add([...turned, turned[0]].join(" → "));
      }
    }
  };
  for (const folder of graph.keys()) walk([folder]);
  return [...cycles].sort();
}

describe("source layout", () => {
  it("reads the sources and their imports", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    expect(imports.some((i) => i.target === "api")).toBe(true);
    expect(imports.some((i) => i.specifier === "d3")).toBe(true);
  });

  it("puts every file in a feature folder, a shared folder, or the root", () => {
    const known = new Set([...FEATURES, ...SHARED, ROOT]);
    const unknown = [...new Set(Object.keys(sources).map((k) => folderOf(k.replace(/^\.\//, ""))))].filter((f) => !known.has(f));
    expect(unknown).toEqual([]);
  });

  it("has no circle between top-level folders", () => {
    const graph = folderGraph();
    const cycles = folderCycles(graph).map((cycle) => {
      const hops = cycle.split(" → ");
      const why = hops.slice(1).map((to, k) => graph.get(hops[k]!)?.get(to)?.[0]);
      return `${cycle} (${why.join("; ")})`;
    });
    expect(cycles).toEqual([]);
  });

  it("keeps the shared folders free of features", () => {
    const bad = imports.filter((i) => SHARED.includes(i.folder) && i.target !== null && FEATURES.includes(i.target));
    expect(bad.map((i) => `${i.file} → ${i.specifier}`)).toEqual([]);
  });

  it("keeps React out of viz/", () => {
    const bad = imports.filter((i) => i.folder === "viz" && REACT.test(i.specifier));
    expect(bad.map((i) => `${i.file} → ${i.specifier}`)).toEqual([]);
  });

  it("imports d3 only under viz/", () => {
    const bad = imports.filter((i) => i.folder !== "viz" && D3.test(i.specifier));
    expect(bad.map((i) => `${i.file} → ${i.specifier}`)).toEqual([]);
  });
});
