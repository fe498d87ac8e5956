// The words a turn asks with, and which of them an item holds: shared by the local judge's
// coverage signals and the delivery rule that holds partial matches, so both read one set.
import { searchableText } from '../knowledge/item.js';
import type { Item } from '../knowledge/item.js';
import { queryTokens, tokenize } from '../text/index.js';
import { withoutTopicChange } from './conversation.js';
import { parseTimeRange } from './cues.js';
import { nameTerms } from './names.js';

/** The utterance's keyword terms; the words of a time phrase ("last week") are matched against dates, never text. */
export function utteranceTerms(utterance: string, timePhrase?: string): Set<string> {
  const timeWords = new Set(timePhrase ? queryTokens(timePhrase) : []);
  return new Set(queryTokens(utterance).filter((t) => !timeWords.has(t)));
}

/** The terms delivery checks partial matches with, for a turn asked at `now`: one function for recall and replay. */
export function turnQueryTerms(query: string, now: Date): Set<string> {
  return utteranceTerms(query, parseTimeRange(withoutTopicChange(query), now)?.phrase);
}

/** The turn's query terms written as names (delivery's unknown-name rule): one function for recall and replay. */
export function turnQueryNames(query: string, now: Date): string[] {
  const terms = turnQueryTerms(query, now);
  return nameTerms(query).filter((t) => terms.has(t));
}

/** What a query's terms are matched against: the title, the searchable text, and a memory's expansion terms. */
export function matchText(item: Item): string {
  return `${item.title}\n${searchableText(item)}\n${item.terms.join(' ')}`;
}

/** The terms of `terms` that a text holds. */
export function matchedTerms(terms: ReadonlySet<string>, text: string): Set<string> {
  const have = new Set(tokenize(text));
  return new Set([...terms].filter((t) => have.has(t)));
}
