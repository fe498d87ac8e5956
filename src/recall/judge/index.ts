export { statusOf, type Judge, type JudgeCandidate, type JudgeRequest, type JudgeResult, type JudgeStatus } from './types.js';
export {
  LocalJudge,
  DEFAULT_LOCAL_CALIBRATION,
  cosine,
  judgeFeatures,
  localVerdict,
  VECTOR_FEATURES,
  PLAIN_FEATURES,
  type FeatureName,
  type JudgeFeatures,
  type LocalJudgeCalibration,
} from './local.js';
export { LlmJudge, parseVerdicts, MAX_REQUEST_BYTES, MAX_DIALOGUE_CHARS, type LlmJudgeOptions } from './llm.js';
export { DisabledJudge } from './disabled.js';
