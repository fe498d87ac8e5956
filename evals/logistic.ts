// Logistic regression by Newton–Raphson (IRLS): exact maximum likelihood for a handful
// of features. Used to fit the local judge's calibration.

/**
 * Newton-Raphson (IRLS) for logistic regression; returns weights then bias. Maximum
 * likelihood, with an optional L2 penalty `l2 · Σ w²/2` on the weights (never the bias) so a
 * signal that happens to separate a small set perfectly cannot run off to infinity.
 */
export function fitLogistic(xs: number[][], ys: number[], balanced = false, sampleWeights?: readonly number[], l2 = 0): number[] {
  // balanced: weight each class to half the total, i.e. calibrate to a 50 % prior
  const pos = ys.filter((y) => y === 1).length;
  const weightOf = (y: number): number => (!balanced ? 1 : y === 1 ? ys.length / (2 * pos) : ys.length / (2 * (ys.length - pos)));
  const d = (xs[0]?.length ?? 0) + 1;
  let w = new Array<number>(d).fill(0);
  for (let iter = 0; iter < 50; iter++) {
    const g = new Array<number>(d).fill(0);
    const h = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? 1e-6 + (i < d - 1 ? l2 : 0) : 0)));
    for (let i = 0; i < d - 1; i++) g[i]! -= l2 * w[i]!;
    xs.forEach((row, k) => {
      const x = [...row, 1];
      const p = 1 / (1 + Math.exp(-x.reduce((s, v, i) => s + v * w[i]!, 0)));
      const c = weightOf(ys[k]!) * (sampleWeights?.[k] ?? 1);
      for (let i = 0; i < d; i++) {
        g[i]! += c * (ys[k]! - p) * x[i]!;
        for (let j = 0; j < d; j++) h[i]![j]! += c * p * (1 - p) * x[i]! * x[j]!;
      }
    });
    const step = solve(h, g);
    w = w.map((v, i) => v + step[i]!);
    if (Math.max(...step.map(Math.abs)) < 1e-9) break;
  }
  return w;
}

function solve(a: number[][], b: number[]): number[] {
  // Gaussian elimination with partial pivoting
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}
