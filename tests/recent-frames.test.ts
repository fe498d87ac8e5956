// The in-memory tail a single-writer store keeps of its last commits: contiguous up to the head,
// bounded by count and bytes, and a gap starts it over (a reader never gets a hole).
import { describe, expect, it } from 'vitest';
import { RecentFrames } from '../src/log/chain.js';

const frames = (from: number, to: number, size = 10) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ seq: from + i, frame: Buffer.alloc(size, from + i) }));

describe('recent frames', () => {
  it('serves ranges it holds whole, and nothing else', () => {
    const recent = new RecentFrames(100);
    recent.add(frames(1, 10));
    expect(recent.range(3, 5)?.map((f) => f[0])).toEqual([3, 4, 5]);
    expect(recent.range(1, 10)).toHaveLength(10);
    expect(recent.range(9, 11)).toBeUndefined(); // beyond what was committed
    expect(recent.range(0, 2)).toBeUndefined();
    expect(recent.range(5, 4)).toBeUndefined();
  });

  it('drops the oldest frames past its count and byte bounds', () => {
    const byCount = new RecentFrames(5);
    byCount.add(frames(1, 12));
    expect(byCount.range(7, 12)).toBeUndefined();
    expect(byCount.range(8, 12)?.map((f) => f[0])).toEqual([8, 9, 10, 11, 12]);
    const byBytes = new RecentFrames(100, 35);
    byBytes.add(frames(1, 6, 10));
    expect(byBytes.range(4, 6)).toHaveLength(3);
    expect(byBytes.range(3, 6)).toBeUndefined();
  });

  it('starts over at a gap: a store opened at head 40 keeps frames from 41 on', () => {
    const recent = new RecentFrames(100);
    recent.add(frames(1, 3));
    recent.add(frames(41, 42));
    expect(recent.range(1, 3)).toBeUndefined();
    expect(recent.range(41, 42)).toHaveLength(2);
    recent.reset(100);
    expect(recent.range(41, 42)).toBeUndefined();
  });
});
