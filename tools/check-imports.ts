// npm run check:imports [-- --json]
// Keeps the layers honest: no import circles between files (type-only imports count: they
// couple the files as much for a reader), and no layer importing one above it. Exit 1 with
// every circle and every upward import listed; run by the test suite.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');
const SCANNED = ['src', 'projections'];

/** Lower layers first; a file may import only from its own layer or one listed before it. */
export const LAYERS: readonly [string, RegExp][] = [
  ['foundation', /^src\/(errors|config|package-root|access|client|run-file|library|text\/.*|events\/.*|llm\/.*|privacy\/.*)\.ts$/],
  ['log', /^src\/log\//],
  ['embed', /^src\/embed\//],
  ['knowledge', /^src\/knowledge\//],
  ['projections', /^projections\//],
  ['indexer', /^src\/indexer\//],
  ['recall', /^src\/recall\//],
  // above recall: the assembly builds recall's store, recall never reaches up into it
  ['store', /^src\/store\.ts$/],
  ['core', /^src\/((wire|kioku|remote|operations|connect)\.ts|api\/.*)$/],
  ['eval', /^src\/eval\//],
  ['adapters', /^src\/(server|mcp|hook|ui)\//],
];

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

export function importGraph(root = ROOT): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of SCANNED.flatMap((d) => files(join(root, d)))) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s+'(\.[^']+)'/g)) {
      const spec = (m[1] as string).replace(/\.js$/, '.ts');
      targets.add(relative(root, resolve(dirname(file), spec)));
    }
    graph.set(
      relative(root, file),
      [...targets].filter((t) => t !== relative(root, file)),
    );
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

export function layerOf(file: string): number {
  return LAYERS.findIndex(([, re]) => re.test(file));
}

export function upwardImports(graph: Map<string, string[]>): { from: string; to: string }[] {
  const out: { from: string; to: string }[] = [];
  for (const [from, targets] of graph) for (const to of targets) if (layerOf(to) > layerOf(from)) out.push({ from, to });
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
  const graph = importGraph();
  const unplaced = [...graph.keys()].filter((f) => layerOf(f) < 0);
  const found = { circles: circles(graph), upward: upwardImports(graph), unplaced };
  const ok = found.circles.length === 0 && found.upward.length === 0 && unplaced.length === 0;
  if (!values.json) {
    for (const c of found.circles) process.stdout.write(`circle: ${c.join(' ↔ ')}\n`);
    for (const u of found.upward) process.stdout.write(`upward: ${u.from} → ${u.to}\n`);
    for (const f of unplaced) process.stdout.write(`no layer: ${f}\n`);
    process.stdout.write(`${graph.size} files: ${found.circles.length} circle(s), ${found.upward.length} upward import(s)\n`);
  } else process.stdout.write(`${JSON.stringify({ ok, files: graph.size, ...found })}\n`);
  process.exit(ok ? 0 : 1);
}
