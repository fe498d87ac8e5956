// The bundled model spread over two worker threads (kioku import, reembed): a batch split
// between two model copies gives the vectors one copy gives, in input order; a lone query
// stays on the first copy.
import { afterAll, expect, it } from 'vitest';
import { UseLiteEmbedder } from '../src/embed/index.js';

const one = new UseLiteEmbedder();
const two = new UseLiteEmbedder({ workers: 2 });
afterAll(async () => {
  await one.close();
  await two.close();
});

it('embeds a batch split over two model copies exactly as one copy does, in order', async () => {
  const texts = Array.from({ length: 13 }, (_, i) => `Release ${i}: roll back with the script, then re-apply ${i % 4} migrations by hand.`);
  texts[5] = ''; // an empty text is embedded as a space, wherever it lands
  const [a, b] = await Promise.all([one.embed(texts), two.embed(texts)]);
  expect(b).toHaveLength(texts.length);
  b.forEach((v, i) => {
    expect(v).toHaveLength(512);
    const w = a[i] as Float32Array;
    let cos = 0;
    for (let j = 0; j < 512; j++) cos += (v[j] as number) * (w[j] as number);
    expect(cos).toBeGreaterThan(0.9999);
  });
  expect(await two.embed(['how do we roll back?'])).toHaveLength(1);
}, 60_000);
