// The evaluation harness itself: a wrong label fails, an unreachable server fails,
// and a correct label passes, in-process (the CLI and server-process cases are in eval-cli.test.ts).
// The judge is off: these tests check the harness's scoring of recall, not the judge's calibration.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evalCaseSchema, runEval, scoreCase, summarise } from '../src/eval/index.js';
import type { PacketRecord, RecallPacket } from '../src/recall/index.js';
import { REPO } from './helpers.js';
import { useEvalCases } from './support/eval-cases.js';

const cases = useEvalCases();

it('passes a correct label and fails a deliberately wrong one (in-process)', async () => {
  const report = await runEval({ caseFiles: [cases.file], libraryDir: join(REPO, 'evals/library'), transport: 'inproc', embedder: 'hash', judge: 'disabled' });
  const byId = Object.fromEntries(report.results.map((r) => [r.id, r]));
  expect(byId['right-label']?.pass).toBe(true);
  expect(byId['wrong-label']?.pass).toBe(false);
  expect(byId['wrong-label']?.failures).toContain('expected ghost-item not recalled');
  expect(byId['greeting']?.pass).toBe(true);
  expect(report.summary).toMatchObject({
    cases: 3,
    passed: 2,
    failed: 1,
    transport_failures: 0,
    judged_cases: { cases: 2, passed: 1 },
    acknowledgement_cases: { cases: 1, passed: 1 },
  });
});

it('counts an unreachable server as failure, never as an empty success', async () => {
  const report = await runEval({ caseFiles: [cases.file], libraryDir: join(REPO, 'evals/library'), transport: 'http', url: 'http://127.0.0.1:1' });
  expect(report.summary).toMatchObject({ passed: 0, failed: 3, transport_failures: 3 });
});

describe('scoring a packet against its labels', () => {
  const record = (id: string, ns = 'private', held?: string, verdict = 0.9): PacketRecord =>
    ({
      id,
      evidence_key: `${ns}:memory:${id}`,
      provenance: { ns, seq: 1 },
      why: { delivered: !held, verdict, ...(held ? { held_back: held } : {}) },
    }) as unknown as PacketRecord;
  const packet = (records: PacketRecord[], delivered: string[]): RecallPacket =>
    ({
      records,
      delivery: delivered.map((id) => ({ evidence_key: `private:memory:${id}`, verdict: records.find((r) => r.id === id)?.why.verdict })),
      retrieval_mode: 'hybrid',
      judge: { status: 'complete' },
    }) as unknown as RecallPacket;
  const quoted = evalCaseSchema.parse({ id: 'q', query: 'q', need: 'n', expected_delivery: 'any', allowed_ids: ['a'], forbidden_ids: ['f'] });

  it('fails a delivered forbidden item but not one the packet holds back and explains', () => {
    expect(scoreCase(quoted, packet([record('f', 'private', 'quoted'), record('a')], ['a']), 1).pass).toBe(true);
    const r = scoreCase(quoted, packet([record('f'), record('a')], ['f']), 1);
    expect(r.pass).toBe(false);
    expect(r.failures).toContain('forbidden f was delivered');
  });

  it("says each failing item's verdict, and reports every record's verdict and fate", () => {
    const wanted = evalCaseSchema.parse({ id: 'w', query: 'q', need: 'n', expected_delivery: 'deliver', expected_ids: ['a'] });
    const none = scoreCase(wanted, packet([record('a', 'private', 'below_floor', 0.35)], []), 1);
    expect(none.failures).toContain('expected a delivery, got none; best allowed: a (verdict 0.35, held: below_floor)');
    expect(none.judged).toEqual([{ key: 'private:memory:a', verdict: 0.35, delivered: false, held_back: 'below_floor' }]);
    const extra = scoreCase(wanted, packet([record('a'), record('b', 'private', undefined, 0.87)], ['a', 'b']), 1);
    expect(extra.failures).toEqual(['delivered b (verdict 0.87), which is not allowed']);
  });

  it('scores a quiet case: a substantive turn the library cannot answer passes only when nothing is delivered', () => {
    // the library holds a related item (allowed as a record), but nothing that answers
    const quiet = evalCaseSchema.parse({
      id: 'q',
      query: 'What is the wifi password of the Lisbon office?',
      need: 'nothing',
      expected_delivery: 'quiet',
      allowed_ids: ['a'],
    });
    expect(scoreCase(quiet, packet([record('a', 'private', 'below_floor', 0.3)], []), 1)).toMatchObject({ pass: true, failures: [] });
    const loud = scoreCase(quiet, packet([record('a')], ['a']), 1);
    expect(loud.pass).toBe(false);
    expect(loud.failures).toEqual(['expected quiet, delivered a']);
  });

  it('summarises results: pass counts, judged apart from acknowledgements, recall, precision, quiet and no-answer success, latency', () => {
    const cases = [
      evalCaseSchema.parse({ id: 'd1', query: 'q', need: 'n', expected_delivery: 'deliver', expected_ids: ['a', 'b'] }),
      evalCaseSchema.parse({ id: 'd2', query: 'q', need: 'n', expected_delivery: 'deliver', expected_any_ids: [['c', 'x']] }),
      evalCaseSchema.parse({ id: 'q1', query: 'q', need: 'n', expected_delivery: 'quiet' }),
      evalCaseSchema.parse({ id: 'ack', query: 'ok', need: 'n', expected_delivery: 'quiet', expected_mode: 'skipped' }),
    ];
    const results = [
      { ...scoreCase(cases[0]!, packet([record('a'), record('b'), record('z'), record('z')], ['a', 'z']), 30), retrieval_mode: 'hybrid' },
      { ...scoreCase(cases[1]!, packet([record('c')], ['c']), 10), retrieval_mode: 'keyword' },
      { ...scoreCase(cases[2]!, packet([record('y', 'private', 'below_floor', 0.2)], []), 20), retrieval_mode: 'hybrid' },
      {
        ...scoreCase(cases[3]!, { ...packet([], []), retrieval_mode: 'skipped', judge: { status: 'disabled' } } as unknown as RecallPacket, 40),
        error: undefined,
      },
    ];
    expect(results.map((r) => r.pass)).toEqual([false, true, true, true]);
    expect(summarise(cases, results)).toEqual({
      cases: 4,
      passed: 3,
      failed: 1,
      judged_cases: { cases: 3, passed: 2 },
      acknowledgement_cases: { cases: 1, passed: 1 },
      expected_evidence_recall: 1, // a, b and one of (c | x): 3 of 3
      allowed_evidence_precision: 0.667, // delivered a, z, c: z is not allowed
      no_answer_success: 1,
      quiet_turn_success: 1,
      duplicates: 1,
      latency_ms: { p50: 30, p95: 40 },
      retrieval_modes: { hybrid: 2, keyword: 1, skipped: 1 },
      judge_status: { complete: 3, disabled: 1 },
      transport_failures: 0,
    });
    // nothing delivered and nothing quiet: the ratios with no denominator are null, recall of nothing expected is 1
    expect(summarise([], [])).toMatchObject({
      cases: 0,
      allowed_evidence_precision: null,
      no_answer_success: null,
      quiet_turn_success: null,
      expected_evidence_recall: 1,
    });
    // a quiet case that delivers counts against quiet-turn and no-answer success
    const loud = scoreCase(cases[2]!, packet([record('y')], ['y']), 5);
    expect(summarise([cases[2]!], [loud])).toMatchObject({ quiet_turn_success: 0, no_answer_success: 0, transport_failures: 0 });
  });

  it('counts the expected items found among records or deliveries, per case', () => {
    const c = evalCaseSchema.parse({
      id: 'e',
      query: 'q',
      need: 'n',
      expected_delivery: 'any',
      expected_ids: ['a', 'b'],
      expected_any_ids: [['c', 'd'], ['e']],
    });
    const r = scoreCase(c, packet([record('a'), record('d')], ['a']), 1);
    expect(r).toMatchObject({ expected_found: 2, expected_total: 4, delivered: ['a'], delivered_allowed: 1 });
    expect(r.failures).toEqual(['expected b not recalled', 'none of e recalled']);
  });

  it('labels by evidence key when the case says so, and names a wrong retrieval mode', () => {
    const c = evalCaseSchema.parse({
      id: 'k',
      query: 'q',
      need: 'n',
      expected_delivery: 'any',
      expected_ids: ['private:memory:a'],
      label_unit: 'evidence',
      expected_mode: 'keyword',
    });
    const r = scoreCase(c, packet([record('a')], ['a']), 1);
    expect(r.records).toEqual(['private:memory:a']);
    expect(r.failures).toEqual(['expected mode keyword, got hybrid']);
  });

  it('takes a delivered item outside the records by its key, with the verdict the delivery carries', () => {
    const carried = packet([record('a')], ['a']);
    (carried.delivery as { evidence_key: string; verdict: number }[]).push({ evidence_key: 'private:memory:z', verdict: 0.77 });
    const r = scoreCase(quoted, carried, 1);
    expect(r.delivered).toEqual(['a', 'private:memory:z']);
    expect(r.failures).toEqual(['delivered private:memory:z (verdict 0.77), which is not allowed']);
  });

  it('names the best verdict over sections and allowed items, and none when nothing was judged', () => {
    const section = (id: string, n: number, verdict: number | undefined, held?: string): PacketRecord =>
      ({
        id,
        evidence_key: `private:card:${id}#${n}`,
        provenance: { ns: 'private', seq: 1 },
        why: { delivered: false, ...(verdict !== undefined ? { verdict } : {}), ...(held ? { held_back: held } : {}) },
      }) as unknown as PacketRecord;
    const wanted = evalCaseSchema.parse({
      id: 'w',
      query: 'q',
      need: 'n',
      expected_delivery: 'deliver',
      expected_ids: ['b', 'a'],
      expected_any_ids: [['x', 'y']],
    });
    const none = scoreCase(
      wanted,
      packet([section('b', 1, 0.3, 'below_floor'), section('a', 1, 0.2, 'below_floor'), section('a', 2, 0.6, 'history_floor')], []),
      1,
    );
    expect(none.failures).toEqual(['none of x | y recalled', 'expected a delivery, got none; best allowed: a (verdict 0.60, held: history_floor)']);
    const unjudged = scoreCase(wanted, packet([section('b', 1, undefined), section('a', 1, undefined)], []), 1);
    expect(unjudged.failures).toEqual(['none of x | y recalled', 'expected a delivery, got none']);
  });

  it('lists every delivery of a quiet case, and counts duplicate keys', () => {
    const quiet = evalCaseSchema.parse({ id: 'q', query: 'q', need: 'n', expected_delivery: 'quiet', allowed_ids: ['a', 'b'] });
    expect(scoreCase(quiet, packet([record('a'), record('b')], ['a', 'b']), 1).failures).toEqual(['expected quiet, delivered a, b']);
    const twice = scoreCase(quoted, packet([record('a'), record('a')], []), 1);
    expect(twice).toMatchObject({ duplicates: 1, failures: ['1 duplicate evidence key(s)'] });
  });

  it('counts no-answer success over substantive quiet cases only, and ignores results of unknown cases', () => {
    const cases = [
      evalCaseSchema.parse({ id: 'ack', query: 'ok', need: 'n', expected_delivery: 'quiet', expected_mode: 'skipped' }),
      evalCaseSchema.parse({ id: 'wifi', query: 'wifi password?', need: 'n', expected_delivery: 'quiet' }),
    ];
    const results = [
      scoreCase(cases[0]!, { ...packet([], []), retrieval_mode: 'skipped' } as unknown as RecallPacket, 1),
      scoreCase(cases[1]!, packet([record('a')], ['a']), 1),
      { ...scoreCase(cases[1]!, packet([], []), 1), id: 'not-a-case' },
    ];
    expect(summarise(cases, results)).toMatchObject({ quiet_turn_success: 0.5, no_answer_success: 0, acknowledgement_cases: { cases: 1, passed: 1 } });
  });

  it('fails any record from another namespace, labelled or not', () => {
    const r = scoreCase(quoted, packet([record('a'), record('secret', 'team', 'below_floor')], []), 1);
    expect(r.pass).toBe(false);
    expect(r.failures).toContain('record secret leaked from namespace team');
  });
});
