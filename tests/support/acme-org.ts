// The org the attack tests set up (issue 34): acme > {eng, sales}, and members with their spaces.
// One `laptop` token per member (`<member>-laptop`); `joins` puts a member in a space.

/** The org changes (POST /v1/org bodies) that build acme > {eng, sales} with `members` and their `joins`. */
export function acmeChanges(members: readonly string[], joins: Readonly<Record<string, string>>): Record<string, unknown>[] {
  return [
    { action: 'space_add', space: 'acme' },
    { action: 'space_add', space: 'eng', parent: 'acme' },
    { action: 'space_add', space: 'sales', parent: 'acme' },
    ...members.map((m) => ({ action: 'member_add', member: m, tokens: [`${m}-laptop`] })),
    ...Object.entries(joins).map(([member, space]) => ({ action: 'member_join', member, space })),
  ];
}

/** The auth file's tokens of namespace `team`: `admin` (memory:read, org:admin) and one read/write `<member>-laptop` per other name. */
export function acmeTokens(tokens: Readonly<Record<string, string>>): { tokens: Record<string, unknown>[] } {
  return {
    tokens: Object.entries(tokens).map(([who, token]) =>
      who === 'admin'
        ? { name: 'admin', token, namespace: 'team', scopes: ['memory:read', 'org:admin'] }
        : { name: `${who}-laptop`, token, namespace: 'team', scopes: ['memory:read', 'memory:write'] },
    ),
  };
}
