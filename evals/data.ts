// Benchmark data lives outside the repository (../shared/evals, read at run time). When it is
// missing, a developer's machine skips with a message; CI (CI=true) fails with exit 2, since
// there the data is always present and a silent skip would hide a broken path.
export function dataMissing(name: string, file: string, json: boolean): never {
  const ci = process.env['CI'] === 'true' || process.env['CI'] === '1';
  const what = ci ? 'failed (CI=true: the data must be there)' : 'skipped (see ../shared/evals/README.md)';
  process.stdout.write(`${name} data not found at ${file}: ${what}\n`);
  if (json) process.stdout.write(`${JSON.stringify({ eval: name, skipped: !ci, ok: false, reason: 'data not found' })}\n`);
  process.exit(ci ? 2 : 0);
}
