// No judge: every verdict unknown, nothing delivered, nothing counted for demotion.
// For retrieval-only evaluation and for users who want ranked records without delivery.
import type { Judge, JudgeRequest, JudgeResult } from './types.js';

export class DisabledJudge implements Judge {
  readonly id = 'disabled';

  async judge(request: JudgeRequest): Promise<JudgeResult> {
    return { judge: this.id, status: 'disabled', verdicts: new Map(request.candidates.map((c) => [c.key, null])), calls: 0, ms: 0 };
  }
}
