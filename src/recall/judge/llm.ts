// An LLM judge over any OpenAI-compatible chat endpoint (Ollama, vLLM, hosted).
// Batched so each request body stays ≤ 32 KiB; dialogue capped at 4,096 characters;
// every batch shares one deadline; per-item verdicts in [0, 1]; anything missing or
// malformed is unknown, never negative.
import { chatCompletionsUrl } from '../../llm/chat.js';
import { statusOf, type Judge, type JudgeCandidate, type JudgeRequest, type JudgeResult } from './types.js';

export const MAX_REQUEST_BYTES = 32 * 1024;
export const MAX_DIALOGUE_CHARS = 4_096;
const CANDIDATE_CHARS = 2_000;

export interface LlmJudgeOptions {
  url: string;
  model: string;
  apiKey?: string | undefined;
}

const INSTRUCTIONS =
  "You judge whether knowledge items would help an AI assistant answer the user's latest message, given the recent dialogue. " +
  'For each item give a score from 0 (useless) to 1 (clearly useful now). Reply with JSON only: {"verdicts":[{"id":"<id>","score":<number>}]}.';

export class LlmJudge implements Judge {
  readonly id: string;

  constructor(private readonly options: LlmJudgeOptions) {
    this.id = `llm:${options.model}`;
  }

  /** Split candidates into request bodies of at most MAX_REQUEST_BYTES. */
  batches(request: JudgeRequest): { body: string; ids: Map<string, string> }[] {
    const dialogue = clipDialogue(request.dialogue.map((m) => `${m.role}: ${m.content}`).join('\n'));
    const make = (items: { id: string; c: JudgeCandidate }[]): string =>
      JSON.stringify({
        model: this.options.model,
        temperature: 0,
        messages: [
          { role: 'system', content: INSTRUCTIONS },
          {
            role: 'user',
            content: JSON.stringify({
              dialogue,
              message: request.utterance.slice(0, 4_000),
              items: items.map(({ id, c }) => ({ id, title: c.title, text: c.text.slice(0, CANDIDATE_CHARS) })),
            }),
          },
        ],
      });
    const out: { body: string; ids: Map<string, string> }[] = [];
    let current: { id: string; c: JudgeCandidate }[] = [];
    request.candidates.forEach((c, i) => {
      const next = [...current, { id: `c${i}`, c }];
      if (current.length && Buffer.byteLength(make(next)) > MAX_REQUEST_BYTES) {
        out.push({ body: make(current), ids: new Map(current.map((x) => [x.id, x.c.key])) });
        current = [{ id: `c${i}`, c }];
      } else current = next;
    });
    if (current.length) out.push({ body: make(current), ids: new Map(current.map((x) => [x.id, x.c.key])) });
    return out;
  }

  async judge(request: JudgeRequest): Promise<JudgeResult> {
    const started = performance.now();
    const verdicts = new Map<string, number | null>(request.candidates.map((c) => [c.key, null]));
    const tokens = { prompt: 0, completion: 0 };
    const batches = this.batches(request);
    const url = chatCompletionsUrl(this.options.url);
    const errors: string[] = [];
    await Promise.all(
      batches.map(async (b) => {
        const remaining = request.deadline - Date.now();
        if (remaining <= 0) return void errors.push('deadline passed');
        try {
          const res = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}) },
            body: b.body,
            signal: AbortSignal.timeout(remaining),
            redirect: 'error',
          });
          if (!res.ok) return void errors.push(`HTTP ${res.status}`);
          const json = (await res.json()) as { choices?: { message?: { content?: string } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number } };
          tokens.prompt += json.usage?.prompt_tokens ?? 0;
          tokens.completion += json.usage?.completion_tokens ?? 0;
          for (const [id, score] of parseVerdicts(json.choices?.[0]?.message?.content ?? '')) {
            const key = b.ids.get(id);
            if (key !== undefined) verdicts.set(key, score);
          }
        } catch (err) {
          errors.push((err as Error).name === 'TimeoutError' ? 'timeout' : (err as Error).message);
        }
      }),
    );
    const status = statusOf(verdicts, request.candidates.length);
    return {
      judge: this.id,
      status,
      verdicts,
      calls: batches.length,
      tokens,
      ms: performance.now() - started,
      ...(errors.length ? { error: [...new Set(errors)].join('; ') } : {}),
    };
  }
}

function clipDialogue(text: string): string {
  return text.length <= MAX_DIALOGUE_CHARS ? text : text.slice(text.length - MAX_DIALOGUE_CHARS);
}

/** Verdicts from the model's reply; tolerant of code fences, strict about ranges. */
export function parseVerdicts(content: string): Map<string, number> {
  const out = new Map<string, number>();
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start < 0 || end <= start) return out;
  try {
    const parsed = JSON.parse(content.slice(start, end + 1)) as { verdicts?: { id?: unknown; score?: unknown }[] };
    for (const v of parsed.verdicts ?? []) {
      if (typeof v.id === 'string' && typeof v.score === 'number' && v.score >= 0 && v.score <= 1) out.set(v.id, v.score);
    }
  } catch {
    // malformed: every verdict stays unknown
  }
  return out;
}
