// The names a question asks about (delivery's unknown-name rule, issue 30): capitalised words
// that do not start a sentence, words with a capital inside, any Latin word in CJK text; never a
// sentence's first word, a joined identifier, or a time phrase's words.
import { expect, it } from 'vitest';
import { nameTerms } from '../src/recall/names.js';
import { turnQueryNames } from '../src/recall/terms.js';

it('reads names as a writer marks them', () => {
  expect(nameTerms('How do I set up mutation testing with Stryker for my Vitest suite?')).toEqual(['stryker', 'vitest']);
  expect(nameTerms('What does vi.fn() return? Node is fine. Use GraphQL, or mySQL')).toEqual(['graphql', 'mysql']);
  expect(nameTerms('Can a non-localhost host reach the UI and the API?')).toEqual(['api']);
  expect(nameTerms('how do i run tests in watch mode')).toEqual([]);
  expect(nameTerms('用Docker部署Vue应用，要写 dockerfile 吗？')).toEqual(['docker', 'vue', 'dockerfile']);
  expect(nameTerms('Which Pricing plans exist for Enterprise users?')).toEqual(['pric', 'enterprise']);
});

it("leaves a time phrase's words out", () => {
  const now = new Date('2026-12-03T12:00:00Z');
  expect(turnQueryNames('What did we decide about Redis last Monday?', now)).toEqual(['redis']);
  expect(turnQueryNames('What did we decide in March about Redis?', now)).toEqual(['redis']);
});
