// kioku org list | space add|move|remove | member add|remove|join|leave [--ns NS] [--json]
// The team's org (issue 34) through the facade: a change appends org events (the org:admin scope;
// the local owner without tokens has it), list answers from the org projection.
import type { PathOverrides } from '../../src/config.js';
import type { OrgAnswer } from '../../src/kioku.js';
import type { OrgChangeInput } from '../../src/wire.js';
import { DEFAULT_NAMESPACE } from '../../src/events/index.js';
import { authFileOf, loadAuth } from '../../src/server/auth.js';
import type { Access } from '../../src/access.js';
import { EXIT, emit, type OutputOptions } from '../cli-util.js';
import { connectKioku } from './connection.js';

export interface OrgFlags extends OutputOptions, PathOverrides {
  ns?: string;
  parent?: string;
  title?: string;
  token?: string[];
  name?: string;
}

function renderOrg(org: OrgAnswer): string {
  if (!org.org && org.spaces.length === 0) return `${org.namespace}: no org. ${org.explanation ?? ''}`;
  const lines = [`org of ${org.namespace}: ${org.spaces.length} space(s), ${org.members.length} member(s)`];
  for (const s of org.spaces) lines.push(`  space ${s.path.join(' / ')}${s.title ? ` (${s.title})` : ''}: ${s.members.join(', ') || '-'}`);
  for (const m of org.members)
    lines.push(`  member ${m.name}${m.display_name ? ` (${m.display_name})` : ''}: ${m.spaces.join(', ') || 'no space'} · ${m.tokens} token(s)`);
  if (org.explanation) lines.push(org.explanation);
  return lines.join('\n');
}

export async function orgListCommand(flags: OrgFlags): Promise<number> {
  const { kioku } = await connectKioku(flags);
  try {
    const org = await kioku.org(flags.ns ? { namespace: flags.ns } : {}, { actor: 'cli' });
    emit(flags, () => renderOrg(org), org);
    return EXIT.ok;
  } finally {
    await kioku.close();
  }
}

/** The token names the library's auth file holds for `ns` (none to check without an auth file: the service would not either). */
function knownTokens(dataDir: string, ns: string): Pick<Access, 'knownTokens'> {
  const auth = loadAuth(authFileOf(dataDir));
  return auth.tokenNames ? { knownTokens: auth.tokenNames(ns) } : {};
}

/** One change: `kioku org space add eng --parent acme` is { action: 'space_add', space: 'eng', parent: 'acme' }. */
export async function orgChangeCommand(change: OrgChangeInput, flags: OrgFlags): Promise<number> {
  const input: OrgChangeInput = {
    ...change,
    ...(flags.ns ? { namespace: flags.ns } : {}),
    ...(flags.parent ? { parent: flags.parent } : {}),
    ...(flags.title ? { title: flags.title } : {}),
    ...(flags.token?.length ? { tokens: flags.token.flatMap((t) => t.split(',')).filter(Boolean) } : {}),
    ...(flags.name ? { display_name: flags.name } : {}),
  };
  const { kioku, library } = await connectKioku(flags, { actor: 'cli' });
  try {
    // in process, the CLI checks a member's token names against the library's auth file as its service would
    const known = kioku.mode === 'local' && input.action === 'member_add' ? knownTokens(library.dataDir, input.namespace ?? DEFAULT_NAMESPACE) : {};
    const answer = await kioku.changeOrg(input, { actor: 'cli', ...known });
    const what = [change.action.replace('_', ' '), change.member, change.space].filter(Boolean).join(' ');
    emit(flags, () => `${what}: ${answer.changed ? `done (seq ${answer.seq})` : 'nothing to change'}`, answer);
    return EXIT.ok;
  } finally {
    await kioku.close();
  }
}
