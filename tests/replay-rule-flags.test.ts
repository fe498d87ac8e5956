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
