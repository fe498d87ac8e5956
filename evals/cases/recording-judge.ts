// A judge that keeps the exact request the pipeline would send it and answers nothing (every
// verdict unknown): the fit reads the judge's signals from these requests with the judge's own
// judgeFeatures(), so fit and inference cannot drift apart.
import type { Judge, JudgeRequest, JudgeResult } from '../../src/recall/index.js';

export class RecordingJudge implements Judge {
  readonly id = 'recording';
  private last: JudgeRequest | undefined;
  /** the request of the last recall, once */
  take(): JudgeRequest | undefined {
    const r = this.last;
    this.last = undefined;
    return r;
  }
  async judge(request: JudgeRequest): Promise<JudgeResult> {
    this.last = request;
    return { judge: this.id, status: 'failed', verdicts: new Map(request.candidates.map((c) => [c.key, null])), calls: 0, ms: 0 };
  }
}
