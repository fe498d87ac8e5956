// kioku replay's flags for the issue-30 delivery rules: each names the rule it changes, a bad value is a usage error.
import { expect, it } from 'vitest';
import { replayRuleChanges } from '../tools/commands/report.js';
import { rulesWith } from '../src/recall/index.js';

it('--partial-of and --knowledge-first change exactly their rules', () => {
  expect(replayRuleChanges({ partialOf: 'any_better_match', knowledgeFirst: true })).toEqual({ partial_of: 'any_better_match', history_may_lead: false });
  expect(replayRuleChanges({})).toEqual({});
  expect(rulesWith(replayRuleChanges({ knowledgeFirst: true }))).toMatchObject({ history_may_lead: false, partial_of: 'complete_match' });
  expect(() => replayRuleChanges({ partialOf: 'sometimes' })).toThrow(expect.objectContaining({ code: 'KIOKU_USAGE' }));
});

it('--turn-window sets the window radius, 0 turns it off, a bad value is a usage error', () => {
  expect(replayRuleChanges({ turnWindow: '0' })).toEqual({ turn_window: 0 });
  expect(rulesWith(replayRuleChanges({ turnWindow: '1' }))).toMatchObject({ turn_window: 1 });
  expect(() => replayRuleChanges({ turnWindow: '6' })).toThrow(expect.objectContaining({ code: 'KIOKU_USAGE' }));
  expect(() => replayRuleChanges({ turnWindow: 'wide' })).toThrow(expect.objectContaining({ code: 'KIOKU_USAGE' }));
});

it('--section-window sets the section window radius and --trust-judge turns unsure_best off (issue 30)', () => {
  expect(replayRuleChanges({ sectionWindow: '0' })).toEqual({ section_window: 0 });
  expect(() => replayRuleChanges({ sectionWindow: '9' })).toThrow(expect.objectContaining({ code: 'KIOKU_USAGE' }));
  expect(replayRuleChanges({ trustJudge: true })).toEqual({ unsure_best: { below: 0, floor: 1, ranks: 0 } });
});
