// Channel contribution and ablations in one run (issue 35): every question asked read-only in
// process with all lanes, then once per lane with that lane's weight set to 0. For each lane:
// recall@10 without it (the ablation) and the questions whose gold is in the top 10 only thanks
// to it (found with every lane, lost without this one). `npm run eval:locomo -- --contribution`.
import { recall, type RecallConfig, type RecallCore } from '../../src/recall/index.js';
import { score } from './data.js';

export interface ContributionQuestion {
  ns: string;
  question: string;
  category: number;
  gold: string[];
}

export interface ContributionReport {
  /** categories 1–4 */
  all_lanes_r10: number;
  lanes: Record<string, { r10_without: number; found_only_thanks_to: number; by_category_only_thanks_to: Record<string, number> }>;
}

const round = (x: number): number => Math.round(x * 10_000) / 10_000;

export async function measureContribution(core: RecallCore, base: RecallConfig, questions: readonly ContributionQuestion[]): Promise<ContributionReport> {
  const counted = questions.filter((q) => q.category !== 5);
  const lanes = Object.keys(base.channel_weights).filter((l) => (base.channel_weights[l] ?? 0) > 0);
  /** per question: a gold turn in the top 10; and recall@10 over the questions */
  const ask = async (config: RecallConfig): Promise<{ hit: boolean[]; r10: number }> => {
    const hit: boolean[] = [];
    let sum = 0;
    for (const q of counted) {
      const packet = await recall({ ...core, config }, { query: q.question, namespace: q.ns, limit: 10 }, { readOnly: true });
      const r10 = score(packet.records.map((r) => r.id), q.gold).r10;
      hit.push(r10 > 0);
      sum += r10;
    }
    return { hit, r10: counted.length ? round(sum / counted.length) : 0 };
  };
  const all = await ask(base);
  const report: ContributionReport = { all_lanes_r10: all.r10, lanes: {} };
  for (const lane of lanes) {
    const without = await ask({ ...base, channel_weights: { ...base.channel_weights, [lane]: 0 } });
    const byCategory: Record<string, number> = {};
    let only = 0;
    counted.forEach((q, i) => {
      if (!all.hit[i] || without.hit[i]) return;
      only += 1;
      byCategory[String(q.category)] = (byCategory[String(q.category)] ?? 0) + 1;
    });
    report.lanes[lane] = { r10_without: without.r10, found_only_thanks_to: only, by_category_only_thanks_to: byCategory };
  }
  return report;
}
