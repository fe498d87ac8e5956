// kioku recall | ask | report cold|delivery | replay | eval: what the library recalls, how its
// deliveries went, and how they would go under other rules or on the labelled cases.
import type { AskFlags } from '../ask.js';
import type { EvalFlags } from '../eval.js';
import type { RecallFlags } from '../recall.js';
import type { ColdFlags, DeliveryReportFlags, ReplayFlags } from '../report.js';
import type { LifecycleFlags } from '../lifecycle.js';
import { action, jsonOption, onStore, type Define } from './options.js';

export const recall: Define = (program) =>
  onStore(
    program.command('recall').description('recall what the store knows about QUERY (the same core as HTTP and MCP)').argument('<query>', 'what to recall'),
  )
    .option('--ns <namespace>', 'namespace to read')
    .option('--limit <n>', 'records to return (1–50)', '10')
    .option('--no-wiki', 'leave wiki topics out')
    .option('--no-cards', 'leave cards out')
    .option('--no-memories', 'leave memories out')
    .option('--no-conversations', 'leave earlier conversations (traces) out')
    .option('--no-semantic', 'keyword lanes only (no model)')
    .option('--max-wiki <n>', 'at most N wiki sections')
    .option('--max-cards <n>', 'at most N card sections')
    .option('--tag <tag...>', 'only items carrying every tag named')
    .action(action((query: string, flags: RecallFlags) => import('../recall.js').then((m) => m.recallCommand(query, flags))));

export const ask: Define = (program) =>
  onStore(
    program
      .command('ask')
      .description('recall, then answer with the configured model (KIOKU_LLM_URL, _MODEL, _API_KEY) from the delivered evidence, citing it')
      .argument('<question>', 'what to ask'),
  )
    .option('--ns <namespace>', 'namespace to read')
    .action(action((question: string, flags: AskFlags) => import('../ask.js').then((m) => m.askCommand(question, flags))));

export const report: Define = (program) => {
  const report = program.command('report').description('reports from the usage counters');
  onStore(report.command('cold').description('evidence considered at least N times and never judged relevant'))
    .option('--ns <namespace>', 'namespace', 'private')
    .option('--min-considered <n>', 'minimum times considered', '5')
    .action(action((flags: ColdFlags) => import('../report.js').then((m) => m.coldReportCommand(flags))));
  onStore(report.command('delivery').description('delivery outcomes of the last N days and the least-used repeated items (a lexical proxy)'))
    .option('--days <n>', 'days back', '7')
    .option('--ns <namespace>', 'only this namespace')
    .action(action((flags: DeliveryReportFlags) => import('../report.js').then((m) => m.deliveryReportCommand(flags))));
};

export const replay: Define = (program) =>
  onStore(
    program.command('replay').description('re-run recorded turns through the current delivery rules, or changed ones (no judge, no model, nothing appended)'),
  )
    .option('--from <time>', 'ISO date or time (default: the beginning)')
    .option('--to <time>', 'ISO date or time (default: now)')
    .option('--ns <namespace>', 'only this namespace')
    .option('--retrieve', "also re-run retrieval against today's projections (and say so)")
    .option('--floor <v>', 'try another verdict floor (0–1; default 0.5)')
    .option('--history-floor <v>', 'try another floor for history items (0–1; default 0.75)')
    .option('--max-items <n>', 'try another item cap (0–3; default 3)')
    .option('--max-history <n>', 'try another cap on history items (default 1)')
    .option('--keep-partial-matches', 'try without the rule that holds an item matching only part of what a delivered one matches')
    .option('--partial-of <rule>', 'what a partial match is held behind: any_better_match (before issue 30), complete_match (default), higher_ranked_match')
    .option('--knowledge-first', 'try without the rule that lets a history item above the best knowledge item keep a slot')
    .option('--turn-window <n>', 'turns handed over each side of a delivered conversation turn (0–5; 0 = off; default 2)')
    .option('--section-window <n>', 'sections handed over each side of a delivered documentation section (0–5; 0 = off; default 1)')
    .option('--trust-judge', "try without the rule that gives retrieval's first two candidates a lower floor when the judge is unsure of its best")
    .action(action((flags: ReplayFlags) => import('../report.js').then((m) => m.replayCommand(flags))));

export const lifecycle: Define = (program) => {
  const lifecycle = program.command('lifecycle').description('how memory ages: per-kind decay and the lifecycle states (candidate → active → archived)');
  onStore(lifecycle.command('run').description('strengths now and the lifecycle transitions, appended as events (kioku serve runs it on a timer)'))
    .option('--ns <namespace>', 'namespace (default: the caller\'s, private without a token)')
    .option('--dry-run', 'report the histogram and the transitions, append nothing')
    .action(action((flags: LifecycleFlags) => import('../lifecycle.js').then((m) => m.lifecycleRunCommand(flags))));
};

export const evaluate: Define = (program) =>
  program
    .command('eval')
    .description('run the labelled recall and conversation cases against a fresh Kioku (exit 1 if any case fails)')
    .addOption(jsonOption())
    .option('--cases <files>', 'comma-separated case files (default evals/cases/recall.json,conversation.json)')
    .option('--only <ids>', 'comma-separated case ids: run only these')
    .option('--library <dir>', 'library to load (default evals/library)')
    .option('--transport <kind>', 'http (a real server process, default) or inproc', 'http')
    .option('--url <url>', 'evaluate a running service instead of a fresh one (its token from KIOKU_TOKEN)')
    .option('--live', 'with --url: evaluate the configured live library')
    .option('--embedder <kind>', 'embedder for the fresh store (default $KIOKU_EMBEDDER or use-lite)')
    .option('--judge <kind>', 'judge: local, llm or disabled')
    .option('--output <file>', 'write the full report as JSON')
    .option('--baseline <file>', 'compare with this report (default evals/reports/baseline.json)')
    .action(action((flags: EvalFlags) => import('../eval.js').then((m) => m.evalCommand(flags))));
