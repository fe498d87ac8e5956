// kioku import jsonl FILE [--ns NS] [--json]: a jsonl export (kioku export --format jsonl) back
// into a library, 500 lines a request, through its service when one holds it. Documents come
// whole with the same section ids, memories with the same ids: the same evidence keys and texts.
// Idempotent: an unchanged document or memory appends nothing.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { PathOverrides } from '../../src/config.js';
import { isKiokuError, KiokuError } from '../../src/errors.js';
import type { ImportItemsAnswer } from '../../src/knowledge/import-items.js';
import type { ImportItemsInput } from '../../src/wire.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface ImportJsonlFlags extends OutputOptions, PathOverrides {
  ns?: string;
}

const BATCH = 500;

/** A refusal naming `items.12.kind` names the file's line instead (nothing of that batch was written). */
function atLine(err: unknown, file: string, lineOf: readonly number[]): unknown {
  if (!isKiokuError(err, 'KIOKU_INPUT_INVALID')) return err;
  const m = /^items\.(\d+)(?:\.(.*))?$/.exec(String(err.details?.['field'] ?? ''));
  const line = m ? lineOf[Number(m[1])] : undefined;
  if (line === undefined) return err;
  return new KiokuError('KIOKU_INPUT_INVALID', `${file}:${line}: ${err.message} (nothing of lines ${lineOf[0]}–${lineOf.at(-1)} was written)`, {
    cause: err,
    details: { field: m?.[2] ?? '(line)', line },
  });
}

export async function importJsonlCommand(file: string, flags: ImportJsonlFlags): Promise<number> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new KiokuError('KIOKU_USAGE', `${file}: no such file (kioku import jsonl takes a file made by kioku export)`);
  // the store itself is created when missing: an export goes into a fresh library
  const { kioku, via } = await connectKioku(flags, { actor: 'cli:import', createIfMissing: true });
  // after the await: lines a reader emits before its iteration starts are lost
  const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
  const total: ImportItemsAnswer = { namespace: flags.ns ?? '', written: { card: 0, wiki: 0, note: 0, memory: 0 }, unchanged: 0, skipped: {} };
  let batch: unknown[] = [];
  /** the file's line number of each item in the batch */
  let lineOf: number[] = [];
  let n = 0;
  const send = async (): Promise<void> => {
    if (!batch.length) return;
    let answer: ImportItemsAnswer;
    try {
      answer = await kioku.importItems({ ...(flags.ns ? { namespace: flags.ns } : {}), items: batch as ImportItemsInput['items'] }, { actor: 'cli' });
    } catch (err) {
      throw atLine(err, file, lineOf);
    }
    total.namespace = answer.namespace;
    for (const k of Object.keys(total.written) as (keyof ImportItemsAnswer['written'])[]) total.written[k] += answer.written[k];
    total.unchanged += answer.unchanged;
    for (const [k, v] of Object.entries(answer.skipped)) total.skipped[k] = (total.skipped[k] ?? 0) + v;
    batch = [];
    lineOf = [];
  };
  try {
    for await (const text of lines) {
      n += 1;
      if (!text.trim()) continue;
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new KiokuError('KIOKU_INPUT_INVALID', `${file}:${n}: not a JSON line`, { details: { field: `line ${n}` } });
      }
      if (n === 1 && 'kioku_export' in line) {
        if (line['kioku_export'] !== 1) throw new KiokuError('KIOKU_INPUT_INVALID', `${file}: export format ${String(line['kioku_export'])} is not one this Kioku reads`);
        continue;
      }
      batch.push(line);
      lineOf.push(n);
      if (batch.length >= BATCH) await send();
    }
    await send();
  } finally {
    await kioku.close();
  }
  const w = total.written;
  emit(
    flags,
    () =>
      `imported into ${total.namespace} (through ${via}): ${w.card} card(s), ${w.wiki} wiki topic(s), ${w.note} note(s), ${w.memory} memor${w.memory === 1 ? 'y' : 'ies'} written; ${total.unchanged} unchanged${Object.keys(total.skipped).length ? `; skipped (history a turn recorded, or held by reference): ${Object.entries(total.skipped).map(([k, v]) => `${v} ${k}`).join(', ')}` : ''}${via === 'the store' ? '\nvectors: `kioku reembed` computes them now, or the service when it next starts (keyword search works at once)' : ''}`,
    { ok: true, file, via, ...total },
  );
  return EXIT.ok;
}
