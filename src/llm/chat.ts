// One call of an OpenAI-compatible chat-completions endpoint (the LLM judge's and `kioku ask`'s
// model): the URL a base address means, the bearer key, no redirects, a deadline.
import { KiokuError } from '../errors.js';

/** `http://host/v1` and `http://host` both mean `…/v1/chat/completions`. */
export function chatCompletionsUrl(base: string): string {
  return new URL(/\/v1\/?$/.test(base) ? 'chat/completions' : 'v1/chat/completions', base.endsWith('/') ? base : `${base}/`).toString();
}

export interface ChatRequest {
  url: string;
  model: string;
  apiKey?: string | undefined;
  messages: { role: 'system' | 'user' | 'assistant'; content: string }[];
  timeoutMs: number;
  maxTokens?: number;
}

export async function chatCompletion(request: ChatRequest): Promise<{ content: string; tokens: { prompt: number; completion: number } }> {
  let res: Response;
  try {
    res = await fetch(chatCompletionsUrl(request.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(request.apiKey ? { authorization: `Bearer ${request.apiKey}` } : {}) },
      body: JSON.stringify({
        model: request.model,
        messages: request.messages,
        temperature: 0,
        ...(request.maxTokens ? { max_tokens: request.maxTokens } : {}),
      }),
      signal: AbortSignal.timeout(request.timeoutMs),
      redirect: 'error',
    });
  } catch (cause) {
    throw new KiokuError('KIOKU_LLM_FAILED', `the model at ${request.url} did not answer: ${(cause as Error).message}`, { cause });
  }
  if (!res.ok) throw new KiokuError('KIOKU_LLM_FAILED', `the model at ${request.url} answered HTTP ${res.status}`, { details: { status: res.status } });
  const json = (await res.json().catch(() => ({}))) as {
    choices?: { message?: { content?: string } }[];
    usage?: { prompt_tokens?: number; completion_tokens?: number };
  };
  const content = json.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new KiokuError('KIOKU_LLM_FAILED', `the model at ${request.url} gave no answer text`);
  return { content, tokens: { prompt: json.usage?.prompt_tokens ?? 0, completion: json.usage?.completion_tokens ?? 0 } };
}
