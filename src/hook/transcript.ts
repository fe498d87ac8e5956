// Reading the host's transcript (Claude Code and Codex write JSONL) from its end, bounded:
// never the whole file. The dialogue is the last user and assistant *text* messages (tool
// calls, tool output and harness messages left out); context_since is the time of the last
// compaction, found by its serialized field (a message that merely mentions compaction does not count).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface TranscriptTail {
  dialogue: { role: 'user' | 'assistant'; content: string }[];
  /** ISO time of the last compact_boundary record, if any in the tail */
  context_since?: string;
  /** the last assistant text (the answer a Stop hook captures) */
  last_answer?: string;
}

/** The last `maxBytes` of a file as whole lines (the first, partial line dropped). */
export function tailLines(path: string, maxBytes = 512 * 1024): string[] {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - maxBytes);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    const lines = buf.toString('utf8').split('\n');
    if (start > 0) lines.shift();
    return lines.filter((l) => l.trim().length > 0);
  } finally {
    closeSync(fd);
  }
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

export function readTranscriptTail(path: string, options: { messages?: number; maxBytes?: number } = {}): TranscriptTail {
  const max = options.messages ?? 6;
  const texts: { role: 'user' | 'assistant'; content: string }[] = [];
  let since: string | undefined;
  for (const line of tailLines(path, options.maxBytes)) {
    let entry: Entry;
    try {
      entry = JSON.parse(line) as Entry;
    } catch {
      continue; // a line being written, or not JSON at all
    }
    if (entry.subtype === 'compact_boundary' || entry.type === 'compacted') {
      since = entry.timestamp ?? since;
      texts.length = 0; // what came before the compaction is no longer in the agent's view
      continue;
    }
    const t = textOf(entry);
    if (t) texts.push({ role: t.role, content: t.text });
  }
  const lastAnswer = [...texts].reverse().find((t) => t.role === 'assistant')?.content;
  return { dialogue: texts.slice(-max), ...(since ? { context_since: since } : {}), ...(lastAnswer ? { last_answer: lastAnswer } : {}) };
}
