// kioku ask "QUESTION" [--ns NS] [--json]
// Recall through the same core as every other door, then answer with a configured
// OpenAI-compatible model (KIOKU_LLM_URL, KIOKU_LLM_MODEL, KIOKU_LLM_API_KEY) from the delivered
// evidence only, citing it. Stops before generation when recall fails.
import type { PathOverrides } from '../../src/config.js';
import { KiokuError } from '../../src/errors.js';
import { chatCompletion } from '../../src/llm/chat.js';
import type { RecallPacket } from '../../src/recall/index.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface AskFlags extends OutputOptions, PathOverrides {
  ns?: string;
}

const SYSTEM = [
  'You answer from the evidence Kioku recalled, and from nothing else.',
  'Cite the evidence keys you used in square brackets, e.g. [ev1:private:memory:x].',
  'If the evidence does not answer the question, say so in one sentence.',
].join(' ');

export async function askCommand(question: string, flags: AskFlags): Promise<number> {
  const url = process.env['KIOKU_LLM_URL'];
  const model = process.env['KIOKU_LLM_MODEL'];
  if (!url || !model)
    throw new KiokuError('KIOKU_USAGE', 'kioku ask needs a model: set KIOKU_LLM_URL and KIOKU_LLM_MODEL (and KIOKU_LLM_API_KEY if it wants one)');
  const { kioku, via } = await connectKioku(flags);
  let packet: RecallPacket;
  try {
    packet = await kioku.recall({ query: question, ...(flags.ns ? { namespace: flags.ns } : {}) }, { actor: 'cli:ask' });
  } finally {
    await kioku.close();
  }
  const evidence = packet.delivery.map((d) => `[${d.evidence_key}] ${d.title}\n${d.text}`).join('\n\n');
  const answer = await chatCompletion({
    url,
    model,
    apiKey: process.env['KIOKU_LLM_API_KEY'],
    timeoutMs: Number(process.env['KIOKU_LLM_TIMEOUT_MS'] ?? 60_000),
    messages: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: `Question: ${question}\n\nEvidence:\n${evidence || '(none was delivered)'}` },
    ],
  });
  const refs = packet.delivery.map((d) => d.evidence_key);
  emit(
    flags,
    () => [answer.content.trim(), '', refs.length ? `evidence (from ${via}): ${refs.join(', ')}` : `no evidence delivered (from ${via})`].join('\n'),
    { answer: answer.content.trim(), evidence_refs: refs, tokens: answer.tokens, packet },
  );
  return EXIT.ok;
}
