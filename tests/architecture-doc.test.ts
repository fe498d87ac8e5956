// docs/architecture.md cannot drift from the code it maps: its layer table is checked against
// LAYERS (tools/check-imports.ts, what `npm run check:imports` enforces) — the same layers in the
// same order, every place the table names lying in its row's layer, and every file of src/ and
// projections/ under a place its layer's row names — and the paths it cites exist.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS, importGraph, layerOf } from '../tools/check-imports.js';

const ROOT = join(import.meta.dirname, '..');
const DOC = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');

interface Row {
  layer: string;
  places: string[];
}

/** The rows of the table between the layers markers: layer name and the `places` of its second column. */
function layerTable(doc: string): Row[] {
  const begin = doc.indexOf('<!-- layers:begin');
  const end = doc.indexOf('<!-- layers:end -->');
  if (begin < 0 || end < begin) throw new Error('docs/architecture.md has no layers:begin … layers:end table');
  return doc
    .slice(begin, end)
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| layer |'))
    .map((line) => {
      const [layer, where] = line
        .split('|')
        .slice(1, 3)
        .map((c) => c.trim()) as [string, string];
      return { layer, places: [...where.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string) };
    });
}

/** A place names a folder (ends in /) or one file. */
function covers(place: string, file: string): boolean {
  return place.endsWith('/') ? file.startsWith(place) : file === place;
}

/** Which layer, if any, a place of the table lies in. */
function layerOfPlace(place: string): number {
  return layerOf(place.endsWith('/') ? `${place}x.ts` : place);
}

/** Every way the table and LAYERS disagree, as sentences (empty when they agree). */
function disagreements(rows: readonly Row[], files: readonly string[]): string[] {
  const out: string[] = [];
  const names = LAYERS.map(([name]) => name);
  if (rows.map((r) => r.layer).join() !== names.join()) out.push(`layers ${rows.map((r) => r.layer).join(', ')} ≠ LAYERS ${names.join(', ')}`);
  rows.forEach((row, i) => {
    for (const place of row.places)
      if (layerOfPlace(place) !== i) out.push(`${place} is listed under ${row.layer} but LAYERS puts it in ${names[layerOfPlace(place)] ?? 'no layer'}`);
  });
  for (const file of files) {
    const row = rows[layerOf(file)];
    if (row && !row.places.some((p) => covers(p, file))) out.push(`${file} (${row.layer}) is under no place of its row`);
  }
  return out;
}

describe('docs/architecture.md', () => {
  const rows = layerTable(DOC);

  it('has the layer table of LAYERS: same layers, same order, every file of src/ and projections/ placed in its row', () => {
    expect(rows).toHaveLength(LAYERS.length);
    expect(disagreements(rows, [...importGraph().keys()])).toEqual([]);
  });

  it('would catch a table that drifted: a layer missing, a file moved, a file not named', () => {
    const dropped = rows.filter((r) => r.layer !== 'store');
    expect(disagreements(dropped, [])[0]).toMatch(/^layers .* ≠ LAYERS/);
    const moved = rows.map((r) => (r.layer === 'core' ? { ...r, places: [...r.places, 'src/store.ts'] } : r));
    expect(disagreements(moved, [])).toEqual(['src/store.ts is listed under core but LAYERS puts it in store']);
    const unnamed = rows.map((r) => (r.layer === 'core' ? { ...r, places: r.places.filter((p) => p !== 'src/connect.ts') } : r));
    expect(disagreements(unnamed, ['src/connect.ts'])).toEqual(['src/connect.ts (core) is under no place of its row']);
  });

  it('cites paths that exist', () => {
    const cited = [...DOC.matchAll(/`((?:src|projections|tests|tools|docs|evals)\/[\w./-]*?)`/g)].map((m) => m[1] as string);
    expect(cited.length).toBeGreaterThan(40);
    expect(cited.filter((p) => !p.includes('<') && !existsSync(join(ROOT, p)))).toEqual([]);
  });
});
