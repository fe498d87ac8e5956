// npm run check:functions [-- --json]
// No function over 100 lines in src/ or tools/ (issue 32): a function that long is several steps
// a reader has to hold at once. A function's length is the lines its node spans, from the line
// of its first token (name, `async`, parameters) to the line of its closing brace. Callbacks and
// helpers written inside a function count as part of it and are not measured again on their own
// (they are never longer than it); a method of a class counts as a function of its own. Exit 1
// with each offender that is not on ALLOWED, and each ALLOWED entry that no longer needs to be.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');
const SCANNED = ['src', 'tools'];
export const MAX_LINES = 100;

/**
 * Functions allowed over the limit, as `file#name`, while their split is under way: each entry is
 * temporary and must go when its function is split (the check fails on a stale entry). Empty
 * since issue 32 split the last ten.
 */
export const ALLOWED: readonly string[] = [];

export interface FunctionSpan {
  file: string;
  name: string;
  line: number;
  lines: number;
}

const KINDS: Partial<Record<string, ts.ScriptKind>> = {
  '.ts': ts.ScriptKind.TS,
  '.mts': ts.ScriptKind.TS,
  '.js': ts.ScriptKind.JS,
  '.mjs': ts.ScriptKind.JS,
  '.cjs': ts.ScriptKind.JS,
};

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path);
    return KINDS[extname(path)] !== undefined && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** What a reader would call the function: its own name, the name it is bound to, or the call it is handed to. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name)
    return parent.name.getText(source);
  if (ts.isCallExpression(parent)) return `<callback of ${parent.expression.getText(source).replace(/\s+/g, '')}>`;
  return '<anonymous>';
}

/** Every outermost function of one file (top-level functions and arrows, class methods) with the lines it spans. */
export function functionSpans(text: string, file: string): FunctionSpan[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, KINDS[extname(file)] ?? ts.ScriptKind.TS);
  const out: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
      out.push({ file, name: nameOf(fn, source), line: first + 1, lines: last - first + 1 });
      return; // what is written inside counts as part of this function
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Functions over MAX_LINES in src/ and tools/, longest first. */
export function longFunctions(root = ROOT, max = MAX_LINES): FunctionSpan[] {
  return SCANNED.flatMap((dir) => files(join(root, dir)))
    .flatMap((path) => functionSpans(readFileSync(path, 'utf8'), relative(root, path)))
    .filter((f) => f.lines > max)
    .sort((a, b) => b.lines - a.lines);
}

/** The offenders not allowed, and the allowed entries that match no offender any more. */
export function checkFunctions(found: FunctionSpan[], allowed: readonly string[] = ALLOWED): { offenders: FunctionSpan[]; stale: string[] } {
  const keys = new Set(found.map((f) => `${f.file}#${f.name}`));
  return { offenders: found.filter((f) => !allowed.includes(`${f.file}#${f.name}`)), stale: allowed.filter((a) => !keys.has(a)) };
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const { values } = parseArgs({ options: { json: { type: 'boolean', default: false } } });
  const found = longFunctions();
  const { offenders, stale } = checkFunctions(found);
  if (!values.json) {
    for (const f of found)
      process.stdout.write(`${offenders.includes(f) ? 'too long' : 'allowed '}  ${String(f.lines).padStart(4)}  ${f.file}:${f.line} ${f.name}\n`);
    for (const s of stale) process.stdout.write(`stale allowance (now ≤ ${MAX_LINES} lines or gone): ${s}\n`);
    process.stdout.write(`${found.length} function(s) over ${MAX_LINES} lines: ${offenders.length} not allowed, ${stale.length} stale allowance(s)\n`);
  } else process.stdout.write(`${JSON.stringify({ ok: offenders.length === 0 && stale.length === 0, max_lines: MAX_LINES, over: found, offenders, stale })}\n`);
  process.exit(offenders.length === 0 && stale.length === 0 ? 0 : 1);
}
