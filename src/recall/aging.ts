// How memory ages (the adaptive-recall seed, 004): an ACT-R activation from recency and frequency
// of use, a per-kind decay of an item's strength since it was last written or used, and the
// lifecycle states that decay moves an item through (candidate → active → archived). Pure rules;
// the re-rank stage (stages/activation.ts) and the lifecycle job (lifecycle.ts) apply them.
import type { EventData } from '../events/index.js';
import type { Layer } from '../knowledge/evidence.js';

/** candidate (written, never yet strong enough to count as settled) → active → archived; tombstoned items are skipped. */
export type LifecycleState = EventData<'lifecycle.transitioned'>['to'];

/** The seed's decay classes, with its rates per day since last written or used. */
export const DECAY_CLASSES = ['identity', 'semantic', 'procedural', 'note', 'episodic', 'working'] as const;
export type DecayClass = (typeof DECAY_CLASSES)[number];

export interface AgingConfig {
  /** ACT-R re-rank after fusion: A = −d·ln(age) + β·ln(1+freq) + ε·strength (seed 004, Anderson 1983) */
  actr: {
    enabled: boolean;
    /** decay of activation with age (ACT-R's customary 0.5; the seed gives only the form) */
    d: number;
    beta: number;
    epsilon: number;
    /** the most a candidate's fused score gains: weight · σ(A), σ the logistic function */
    weight: number;
    /** ages below this (days) count as this: ln(0) has no value, and a use a second ago is no more recent than one a minute ago */
    min_age_days: number;
  };
  /** λ per day of each class (seed 004: identity 0.0001 … working 0.05) */
  decay_rates: Record<DecayClass, number>;
  /** a memory kind's class; kinds not named are semantic */
  kind_classes: Record<string, DecayClass>;
  /** the class of items of a layer with no kind (traces are events of a conversation) */
  layer_classes: Partial<Record<Layer, DecayClass>>;
  /** strength never decays below this (seed: 0.05) */
  floor: number;
  /** candidate → active at or above (seed: 0.5) */
  promote_at: number;
  /** active → archived below (seed: 0.2) */
  archive_below: number;
  /** an archived item's fused score is multiplied by this: it sinks, never vanishes */
  archived_factor: number;
}

export const DEFAULT_AGING: AgingConfig = {
  // off by default: LoCoMo and CMRC have no use history, so it has nothing to measure there (evals/README.md)
  actr: { enabled: false, d: 0.5, beta: 1, epsilon: 1, weight: 0.2, min_age_days: 1 / 24 },
  decay_rates: { identity: 0.0001, semantic: 0.001, procedural: 0.005, note: 0.003, episodic: 0.01, working: 0.05 },
  kind_classes: {
    preference: 'identity',
    directive: 'identity',
    constraint: 'identity',
    fact: 'semantic',
    decision: 'semantic',
    commitment: 'semantic',
    procedure: 'procedural',
    note: 'note',
    observation: 'note',
    event: 'episodic',
    working: 'working',
  },
  layer_classes: { note: 'note', trace: 'episodic' },
  floor: 0.05,
  promote_at: 0.5,
  archive_below: 0.2,
  archived_factor: 0.5,
};

/** The layers that age: memories, daily notes and captured turns. Cards, wiki pages, episodes and assets are documents their sources keep. */
export const AGING_LAYERS: readonly Layer[] = ['memory', 'note', 'trace'];

const DAY_MS = 86_400_000;

/** The decay class of an item (undefined: it does not age). */
export function decayClass(config: AgingConfig, item: { layer: Layer; kind?: string | undefined }): DecayClass | undefined {
  if (!AGING_LAYERS.includes(item.layer)) return undefined;
  if (item.kind !== undefined) return config.kind_classes[item.kind] ?? 'semantic';
  return config.layer_classes[item.layer] ?? 'semantic';
}

/** Strength after `ageMs` without a write or a use: exp(−λ·days), never below the floor (seed: confidence · exp(−λ·days), floor 0.05; Kioku's items start at 1). */
export function strength(config: AgingConfig, cls: DecayClass, ageMs: number): number {
  const days = Math.max(0, ageMs) / DAY_MS;
  return Math.max(config.floor, Math.exp(-config.decay_rates[cls] * days));
}

/** ACT-R activation from the age of the last use (ms), how often the item was used, and its strength. */
export function activation(config: AgingConfig['actr'], ageMs: number, frequency: number, itemStrength: number): number {
  const days = Math.max(config.min_age_days, ageMs / DAY_MS);
  return -config.d * Math.log(days) + config.beta * Math.log1p(Math.max(0, frequency)) + config.epsilon * itemStrength;
}

/** What activation adds to a fused score: bounded by `weight`, so it reorders near-equals and never buries a strong match. */
export function activationBoost(config: AgingConfig['actr'], a: number): number {
  return config.weight / (1 + Math.exp(-a));
}

/** Where an item in `state` goes at `itemStrength`, and why (undefined: it stays). `usedSince` = used after it was archived. */
export function nextState(
  config: AgingConfig,
  state: LifecycleState,
  itemStrength: number,
  usedSince: boolean,
): { to: LifecycleState; reason: string } | undefined {
  if (state === 'tombstoned') return undefined;
  if (state === 'archived') return usedSince ? { to: 'active', reason: 'used after it was archived' } : undefined;
  // a candidate that decayed below the floor of active is archived too: left a candidate, it would never sink
  if (itemStrength < config.archive_below) return { to: 'archived', reason: `strength ${round3(itemStrength)} below ${config.archive_below}` };
  if (state === 'candidate' && itemStrength >= config.promote_at) return { to: 'active', reason: `strength ${round3(itemStrength)} at or above ${config.promote_at}` };
  return undefined;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;
