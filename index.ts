export { runEval, loadCases, loadLibrary, type EvalOptions, type EvalReport } from './harness.js';
export { scoreCase, summarise, evalCaseSchema, type EvalCase, type CaseResult, type EvalSummary } from './cases.js';
