// A deterministic judge for tests: scores from a table or a function; can be told to
// leave some candidates unjudged (partial) or to fail outright.
import { statusOf, type Judge, type JudgeCandidate, type JudgeRequest, type JudgeResult } from '../../src/recall/judge/types.js';

export type ScoreRule = (candidate: JudgeCandidate, request: JudgeRequest) => number | null;

export class DoubleJudge implements Judge {
  readonly id = 'double';
  calls = 0;

  constructor(
    private readonly rule: ScoreRule | Readonly<Record<string, number | null>>,
    private readonly mode: 'normal' | 'fail' = 'normal',
  ) {}

  async judge(request: JudgeRequest): Promise<JudgeResult> {
    this.calls += 1;
    const verdicts = new Map<string, number | null>();
    if (this.mode === 'fail') {
      for (const c of request.candidates) verdicts.set(c.key, null);
      return { judge: this.id, status: 'failed', verdicts, calls: 1, ms: 0, error: 'judge double told to fail' };
    }
    for (const c of request.candidates) {
      const score = typeof this.rule === 'function' ? this.rule(c, request) : (this.rule[c.key] ?? null);
      verdicts.set(c.key, score);
    }
    return { judge: this.id, status: statusOf(verdicts, request.candidates.length), verdicts, calls: 1, ms: 0 };
  }
}
