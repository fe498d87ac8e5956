// The layers stay honest: no import circles between files and no layer importing one
// above it (tools/check-imports.ts, also `npm run check:imports`).
import { describe, expect, it } from 'vitest';
import { circles, importGraph, layerOf, upwardImports } from '../tools/check-imports.js';

describe('imports between layers', () => {
  const graph = importGraph();

  it('places every file of src/ and projections/ in a layer', () => {
    expect([...graph.keys()].filter((f) => layerOf(f) < 0)).toEqual([]);
    expect(graph.size).toBeGreaterThan(90);
  });

  it('has no import circles and no upward imports', () => {
    expect(circles(graph)).toEqual([]);
    expect(upwardImports(graph)).toEqual([]);
  });

  it('would catch a circle and an upward import', () => {
    const bad = new Map([
      ['src/recall/a.ts', ['src/recall/b.ts']],
      ['src/recall/b.ts', ['src/recall/a.ts', 'src/server/app.ts']],
      ['src/server/app.ts', []],
      ['src/log/x.ts', ['src/recall/a.ts']],
    ]);
    expect(circles(bad)).toEqual([['src/recall/a.ts', 'src/recall/b.ts']]);
    expect(upwardImports(bad)).toEqual([
      { from: 'src/recall/b.ts', to: 'src/server/app.ts' },
      { from: 'src/log/x.ts', to: 'src/recall/a.ts' },
    ]);
  });

  it('keeps recall below the store assembly: recall importing src/store.ts is an upward import', () => {
    const reaching = new Map([
      ['src/recall/setup.ts', ['src/store.ts']],
      ['src/store.ts', ['src/recall/core.ts']],
      ['src/recall/core.ts', []],
    ]);
    expect(upwardImports(reaching)).toEqual([{ from: 'src/recall/setup.ts', to: 'src/store.ts' }]);
  });
});
