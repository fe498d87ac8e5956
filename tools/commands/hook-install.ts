// kioku hook install|uninstall|status [--claude] [--codex] [--project DIR] [--url U --token T] [--json]
import { join, resolve } from 'node:path';
import type { PathOverrides } from '../../src/config.js';
import { hookCommand, hookStatus, hookTarget, installHook, uninstallHook, type HookHost } from '../../src/hook/install.js';
import { packageRoot } from '../../src/package-root.js';
import { RemoteKioku } from '../../src/remote.js';
import { resolveLibrary, serveHint } from '../../src/library.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';

export interface HookInstallFlags extends OutputOptions, PathOverrides {
  claude?: boolean;
  codex?: boolean;
  project?: string;
  url?: string;
  token?: string;
}

const hostsOf = (flags: HookInstallFlags): HookHost[] =>
  flags.claude || flags.codex ? [...(flags.claude ? ['claude' as const] : []), ...(flags.codex ? ['codex' as const] : [])] : ['claude'];
const targetsOf = (flags: HookInstallFlags) => hostsOf(flags).map((h) => hookTarget(h, flags.project ? resolve(flags.project) : undefined));

export async function hookInstallCommand(flags: HookInstallFlags): Promise<number> {
  const bin = join(packageRoot(), 'bin', 'kioku.js');
  const done = targetsOf(flags).map((t) =>
    installHook(
      t,
      hookCommand(t.host, {
        bin,
        ...(flags.data ? { data: resolve(flags.data) } : {}),
        ...(flags.url ? { url: flags.url } : {}),
        ...(flags.token ? { token: flags.token } : {}),
      }),
    ),
  );
  emit(flags, () => done.map((d) => `installed the Kioku hook (${d.events.join(', ')}) in ${d.file}`).join('\n'), { ok: true, installed: done });
  return EXIT.ok;
}

export async function hookUninstallCommand(flags: HookInstallFlags): Promise<number> {
  const done = targetsOf(flags).map((t) => uninstallHook(t));
  emit(flags, () => done.map((d) => (d.removed ? `removed the Kioku hook from ${d.file}` : `no Kioku hook in ${d.file}`)).join('\n'), {
    ok: true,
    uninstalled: done,
  });
  return EXIT.ok;
}

export async function hookStatusCommand(flags: HookInstallFlags): Promise<number> {
  const all: HookHost[] = ['claude', 'codex'];
  const targets = flags.claude || flags.codex ? targetsOf(flags) : all.map((h) => hookTarget(h, flags.project ? resolve(flags.project) : undefined));
  const status = targets.map((t) => ({ host: t.host, ...hookStatus(t) }));
  const service = await probeService(flags);
  emit(
    flags,
    () =>
      [
        ...status.map((s) => `${s.host}: ${s.events.length ? `installed (${s.events.join(', ')})` : 'not installed'} in ${s.file}`),
        `service: ${service.answer}`,
      ].join('\n'),
    { ok: true, hooks: status, service },
  );
  return EXIT.ok;
}

/** Whether the service the hook would use answers a real recall (never starts one: the first hook call does). */
async function probeService(flags: HookInstallFlags): Promise<{ url: string | null; recall_ok: boolean; answer: string }> {
  // the service the hook itself would reach (KIOKU_URL, else the data dir's run file: src/library.ts)
  const library = resolveLibrary(flags, process.env, { clientMode: true });
  const url = library.url;
  if (!url)
    return {
      url: null,
      recall_ok: false,
      answer: `no service runs for this library; start it with \`${serveHint(library)}\` (the hook starts one itself only with KIOKU_AUTOSTART=1)`,
    };
  try {
    const started = performance.now();
    const packet = await new RemoteKioku(url, { token: process.env['KIOKU_TOKEN'], timeoutMs: 10_000 }).candidates({
      query: 'kioku hook status check',
      limit: 1,
    });
    return { url, recall_ok: true, answer: `${url} answered a recall in ${Math.round(performance.now() - started)} ms (${packet.retrieval_mode})` };
  } catch (err) {
    return { url, recall_ok: false, answer: `${url} did not answer a recall: ${(err as Error).message}` };
  }
}
