// Channel contribution and ablations in one run (issue 35): every question asked read-only in
// process with all lanes, then once per lane with that lane's weight set to 0. For each lane:
// recall@10 without it (the ablation) and the questions whose gold is in the top 10 only thanks
// to it (found with every lane, lost without this one). One measure for every corpus: LoCoMo
// (`npm run eval:locomo -- --contribution`), CMRC (`npm run eval:cmrc -- --contribution`) and the
// offline cases (`npm run eval:contribution`); each corpus says what "found" means for it.
import { recall, type RecallConfig, type RecallCore, type RecallPacket, type RecallRequest } from '../src/recall/index.js';

export interface ContributionQuestion {
  request: RecallRequest;
  /** a label to break the figures down by (a LoCoMo category, a case group) */
  category: string;
  /** the share of the question's gold in the packet's top 10 records, 0–1 */
  found: (records: RecallPacket['records']) => number;
  /** the clock the question is asked at (offline cases pin one) */
  now?: Date;
}

export interface ContributionReport {
  questions: number;
  all_lanes_r10: number;
  lanes: Record<string, { r10_without: number; found_only_thanks_to: number; by_category_only_thanks_to: Record<string, number> }>;
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

export async function measureContribution(core: RecallCore, base: RecallConfig, questions: readonly ContributionQuestion[]): Promise<ContributionReport> {
  const lanes = Object.keys(base.channel_weights).filter((l) => (base.channel_weights[l] ?? 0) > 0);
  const clock = core.now;
  /** per question: any gold in the top 10; and recall@10 over the questions */
  const ask = async (config: RecallConfig): Promise<{ hit: boolean[]; r10: number }> => {
    const hit: boolean[] = [];
    let sum = 0;
    for (const q of questions) {
      const now = q.now;
      core.now = now ? () => now : clock;
      const packet = await recall({ ...core, config }, { limit: 10, ...q.request }, { readOnly: true });
      const share = q.found(packet.records.slice(0, 10));
      hit.push(share > 0);
      sum += share;
    }
    core.now = clock;
    return { hit, r10: questions.length ? round(sum / questions.length) : 0 };
  };
  const all = await ask(base);
  const report: ContributionReport = { questions: questions.length, all_lanes_r10: all.r10, lanes: {} };
  for (const lane of lanes) {
    const without = await ask({ ...base, channel_weights: { ...base.channel_weights, [lane]: 0 } });
    const byCategory: Record<string, number> = {};
    let only = 0;
    questions.forEach((q, i) => {
      if (!all.hit[i] || without.hit[i]) return;
      only += 1;
      byCategory[q.category] = (byCategory[q.category] ?? 0) + 1;
    });
    report.lanes[lane] = { r10_without: without.r10, found_only_thanks_to: only, by_category_only_thanks_to: byCategory };
  }
  return report;
}

/** The report as lines for a terminal. */
export function contributionLines(report: ContributionReport): string[] {
  return [
    `channel contribution (read-only, in process; ${report.questions} questions, all lanes R@10 ${report.all_lanes_r10}):`,
    ...Object.entries(report.lanes).map(([lane, c]) => `  without ${lane.padEnd(8)} R@10 ${c.r10_without}  found only thanks to it: ${c.found_only_thanks_to}`),
  ];
}
