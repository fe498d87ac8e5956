// The recall switches read from the environment (KIOKU_ACTR, KIOKU_GRAPH_WEIGHT,
// KIOKU_PLAIN_SESSION_GAP_MIN): a value that cannot be read is refused naming the variable, at the
// service's start, instead of silently being the default (KIOKU_ACTR=yes left the re-rank off).
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_RECALL_CONFIG, recallConfigFromEnv } from '../src/recall/config.js';
import { startServer } from '../src/server/index.js';
import { tempDir } from './helpers.js';

describe('recall switches from the environment', () => {
  it('reads on/off words and numbers, and leaves an unset or empty one at the default', () => {
    for (const on of ['1', 'on', 'TRUE', 'yes']) expect(recallConfigFromEnv({ KIOKU_ACTR: on }).aging.actr.enabled).toBe(true);
    for (const off of ['0', 'off', 'false', 'No']) expect(recallConfigFromEnv({ KIOKU_ACTR: off }).aging.actr.enabled).toBe(false);
    expect(recallConfigFromEnv({ KIOKU_GRAPH_WEIGHT: '0.3', KIOKU_PLAIN_SESSION_GAP_MIN: '0' })).toMatchObject({ channel_weights: { graph: 0.3 }, plain_session_gap_min: 0 });
    expect(recallConfigFromEnv({ KIOKU_ACTR: '', KIOKU_GRAPH_WEIGHT: ' ' })).toEqual(DEFAULT_RECALL_CONFIG);
  });

  it('refuses a value it cannot read, naming the variable (defect: KIOKU_ACTR=yes and KIOKU_GRAPH_WEIGHT=0,3 were silently the default)', () => {
    for (const [name, value] of [
      ['KIOKU_ACTR', 'maybe'],
      ['KIOKU_GRAPH_WEIGHT', '0,3'],
      ['KIOKU_GRAPH_WEIGHT', '-1'],
      ['KIOKU_PLAIN_SESSION_GAP_MIN', 'thirty'],
      ['KIOKU_FEEDBACK_TERMS', 'high'],
    ] as const)
      expect(() => recallConfigFromEnv({ [name]: value }), `${name}=${value}`).toThrow(expect.objectContaining({ code: 'KIOKU_USAGE', message: expect.stringContaining(name) }));
  });

  describe('kioku serve', () => {
    const saved = process.env['KIOKU_ACTR'];
    afterEach(() => {
      if (saved === undefined) delete process.env['KIOKU_ACTR'];
      else process.env['KIOKU_ACTR'] = saved;
    });
    it('does not start with a switch it cannot read', async () => {
      const dir = tempDir();
      process.env['KIOKU_ACTR'] = 'maybe';
      try {
        await expect(startServer({ data: dir.path, port: 0, authFile: `${dir.path}/none.json` })).rejects.toMatchObject({ code: 'KIOKU_USAGE' });
      } finally {
        dir.cleanup();
      }
    });
  });
});
