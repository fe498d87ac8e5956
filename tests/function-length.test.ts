// No function over 100 lines in src/ or tools/ (issue 32), except the temporary allowances of
// tools/check-functions.ts (also `npm run check:functions`), and none of those stale.
import { describe, expect, it } from 'vitest';
import { checkFunctions, functionSpans, longFunctions, MAX_LINES } from '../tools/check-functions.js';

/** A function named `name` whose span is `lines` lines. */
const fn = (name: string, lines: number): string => `function ${name}() {\n${'  work();\n'.repeat(lines - 2)}}`;

describe('function length', () => {
  it(`finds no function over ${MAX_LINES} lines in src/ or tools/ beyond the allowances, and no stale allowance`, () => {
    const found = longFunctions();
    expect(checkFunctions(found)).toEqual({ offenders: [], stale: [] });
  });

  it('measures a function by the lines it spans, its callbacks as part of it, class methods on their own', () => {
    const source = [
      fn('short', 100),
      fn('long', 101),
      'export const outer = async (xs: number[]) => {',
      '  xs.forEach((x) => {',
      ...Array.from({ length: 100 }, () => '    use(x);'),
      '  });',
      '};',
      'class Store {',
      '  get size(): number {',
      '    return 0;',
      '  }',
      `  ${fn('method', 3).replace('function ', '')}`,
      '}',
      'app.get("/x", () => 1);',
    ].join('\n');
    const spans = functionSpans(source, 'src/x.ts').map(({ name, line, lines }) => ({ name, line, lines }));
    expect(spans).toEqual([
      { name: 'short', line: 1, lines: 100 },
      { name: 'long', line: 101, lines: 101 },
      { name: 'outer', line: 202, lines: 104 },
      { name: 'size', line: 307, lines: 3 },
      { name: 'method', line: 310, lines: 3 },
      { name: '<callback of app.get>', line: 314, lines: 1 },
    ]);
  });

  it('reports an offender that is not allowed and an allowance that is stale', () => {
    const found = [
      { file: 'src/a.ts', name: 'big', line: 3, lines: 140 },
      { file: 'src/b.ts', name: 'bigger', line: 9, lines: 200 },
    ];
    expect(checkFunctions(found, ['src/b.ts#bigger', 'src/c.ts#gone'])).toEqual({ offenders: [found[0]], stale: ['src/c.ts#gone'] });
  });
});
