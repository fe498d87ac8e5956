// Reading the host's transcript (Claude Code and Codex write JSONL) from its end, bounded:
// never the whole file. The dialogue is the last user and assistant *text* messages (tool
// calls, tool output and harness messages left out); context_since is the time of the last
// compaction, found by its serialized field (a message that merely mentions compaction does not count).
// The dialogue comes from the last 512 KB; the compaction is looked for further back when the tail
// holds none, in chunks read backwards, bounded in bytes and in time (a long session's last
// compaction can lie megabytes back, and the prompt waits for the hook).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface TranscriptTail {
  dialogue: { role: 'user' | 'assistant'; content: string }[];
  /** ISO time of the last compact_boundary record, if any in the file (within the scan's bounds) */
  context_since?: string;
  /** the last assistant text (the answer a Stop hook captures) */
  last_answer?: string;
  /** set when the backward search for a compaction stopped at its bound before the file's start */
  compaction_scan?: { scanned_bytes: number; stopped: 'bytes' | 'time' };
}

/** How far back the last compaction is looked for: bytes before the tail, and time. */
export interface CompactionScanBounds {
  maxBytes: number;
  budgetMs: number;
  chunkBytes: number;
}

/** 64 MB read backwards from the page cache took 115–270 ms here (2 cores at a load average of 11); the time bound keeps a cold disk or a busier machine from holding the prompt. */
export const COMPACTION_SCAN: CompactionScanBounds = { maxBytes: 64 * 1024 * 1024, budgetMs: 250, chunkBytes: 1024 * 1024 };

/** The last `maxBytes` of a file as whole lines (the first, partial line dropped). */
export function tailLines(path: string, maxBytes = 512 * 1024): string[] {
  return tailOf(path, maxBytes).lines;
}

/** The last `maxBytes` of a file as whole lines, and the offset the first whole line starts at. */
function tailOf(path: string, maxBytes: number): { lines: string[]; start: number } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    // the first, partial line is left to the compaction scan (it reads up to the first whole line)
    const cut = start > 0 ? buf.indexOf(0x0a) + 1 || buf.length : 0;
    const lines = buf.subarray(cut).toString('utf8').split('\n');
    return { lines: lines.filter((l) => l.trim().length > 0), start: start + cut };
  } finally {
    closeSync(fd);
  }
}

// the bytes both records' fields start with ("compact_boundary", "compacted"): one search per chunk;
// a line holding them is parsed, and counts only when its fields say so
const MARKER = Buffer.from('"compact');

/** A line that is a compaction record (by its fields, not by its text), and its time. */
function compactionOf(line: string): { at: string | undefined } | undefined {
  let entry: Entry;
  try {
    entry = JSON.parse(line) as Entry;
  } catch {
    return undefined;
  }
  return entry.subtype === 'compact_boundary' || entry.type === 'compacted' ? { at: entry.timestamp } : undefined;
}

/**
 * The time of the last compaction record that ends before byte `end`, read backwards in chunks.
 * Only lines holding a marker's bytes are parsed. Stops at the file's start, after `maxBytes`, or
 * after `budgetMs`, and says which.
 */
export function lastCompactionBefore(
  path: string,
  end: number,
  bounds: CompactionScanBounds = COMPACTION_SCAN,
): { at?: string; scanned_bytes: number; stopped?: 'bytes' | 'time' } {
  const started = performance.now();
  const fd = openSync(path, 'r');
  try {
    let pos = end;
    // the bytes of a line cut by the chunk boundary: completed by the next (earlier) chunk
    let carry = Buffer.alloc(0);
    const read = Buffer.allocUnsafe(Math.min(bounds.chunkBytes, end));
    while (pos > 0) {
      const scanned = end - pos;
      if (scanned >= bounds.maxBytes) return { scanned_bytes: scanned, stopped: 'bytes' };
      if (performance.now() - started > bounds.budgetMs) return { scanned_bytes: scanned, stopped: 'time' };
      const size = Math.min(bounds.chunkBytes, pos);
      const chunk = read.subarray(0, readSync(fd, read, 0, size, pos - size));
      pos -= size;
      // the carry is copied out of the reused buffer (concat copies; a lone chunk is copied below)
      const buf = carry.length ? Buffer.concat([chunk, carry]) : chunk;
      // before the first newline is part of a line that began earlier (unless this is the file's start)
      const first = pos > 0 ? buf.indexOf(0x0a) : -1;
      const found = lastMarkedLine(buf, first + 1);
      if (found) return { ...(found.at ? { at: found.at } : {}), scanned_bytes: end - pos };
      carry = Buffer.from(first < 0 ? buf : buf.subarray(0, first + 1));
    }
    return { scanned_bytes: end };
  } finally {
    closeSync(fd);
  }
}

/** The last compaction record among the whole lines of `buf` from `from`, newest first. */
function lastMarkedLine(buf: Buffer, from: number): { at: string | undefined } | undefined {
  let hit = buf.lastIndexOf(MARKER);
  while (hit >= from) {
    const lineStart = buf.lastIndexOf(0x0a, hit) + 1;
    const lineEnd = buf.indexOf(0x0a, hit);
    const found = compactionOf(buf.subarray(lineStart, lineEnd < 0 ? buf.length : lineEnd).toString('utf8'));
    if (found) return found;
    hit = lineStart >= 1 ? buf.lastIndexOf(MARKER, lineStart - 1) : -1;
  }
  return undefined;
}

type Block = { type?: string; text?: string };
interface Entry {
  type?: string;
  subtype?: string;
  timestamp?: string;
  isMeta?: boolean;
  isCompactSummary?: boolean;
  message?: { role?: string; content?: string | Block[] };
  // Codex rollout lines: { type: 'response_item', payload: { type: 'message', role, content: [{ type: 'input_text' | 'output_text', text }] } }
  payload?: { type?: string; role?: string; content?: Block[] };
}

/** The text of a message, or undefined when it carries none a person wrote (tool calls and results, harness notes). */
function textOf(entry: Entry): { role: 'user' | 'assistant'; text: string } | undefined {
  if (entry.isMeta || entry.isCompactSummary) return undefined;
  const role = entry.message?.role ?? entry.payload?.role;
  if (role !== 'user' && role !== 'assistant') return undefined;
  const content = entry.message?.content ?? entry.payload?.content;
  const text =
    typeof content === 'string'
      ? content
      : (content ?? [])
          .filter((b) => b.type === 'text' || b.type === 'input_text' || b.type === 'output_text')
          .map((b) => b.text ?? '')
          .join('\n');
  const trimmed = text.trim();
  // harness messages a host puts in the user's turn (command output, reminders)
  if (!trimmed || /^<(command-|local-command|system-reminder|user_instructions|environment_context)/.test(trimmed)) return undefined;
  return { role, text: trimmed };
}

export function readTranscriptTail(
  path: string,
  options: { messages?: number; maxBytes?: number; compactionScan?: CompactionScanBounds } = {},
): TranscriptTail {
  const max = options.messages ?? 6;
  const texts: { role: 'user' | 'assistant'; content: string }[] = [];
  let since: string | undefined;
  let found = false;
  const tail = tailOf(path, options.maxBytes ?? 512 * 1024);
  for (const line of tail.lines) {
    let entry: Entry;
    try {
      entry = JSON.parse(line) as Entry;
    } catch {
      continue; // a line being written, or not JSON at all
    }
    if (entry.subtype === 'compact_boundary' || entry.type === 'compacted') {
      found = true;
      since = entry.timestamp ?? since;
      texts.length = 0; // what came before the compaction is no longer in the agent's view
      continue;
    }
    const t = textOf(entry);
    if (t) texts.push({ role: t.role, content: t.text });
  }
  // none in the tail: the last one may lie further back (a long session), or nowhere
  let scan: TranscriptTail['compaction_scan'];
  if (!found && tail.start > 0) {
    const back = lastCompactionBefore(path, tail.start, options.compactionScan);
    since = back.at;
    if (back.stopped) scan = { scanned_bytes: back.scanned_bytes, stopped: back.stopped };
  }
  const lastAnswer = [...texts].reverse().find((t) => t.role === 'assistant')?.content;
  return {
    dialogue: texts.slice(-max),
    ...(since ? { context_since: since } : {}),
    ...(lastAnswer ? { last_answer: lastAnswer } : {}),
    ...(scan ? { compaction_scan: scan } : {}),
  };
}
