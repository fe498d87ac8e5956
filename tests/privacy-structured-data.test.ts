// Found by the outside attack on issue 33: structured tool data named its secrets by key
// ({"password": "…"}, argv flags) and kept them, a secret used as a key stayed, and a secret in a
// markdown heading reached the log inside the section's evidence key.
import { describe, expect, it } from 'vitest';
import { redactEventData, redactText } from '../src/privacy/index.js';
import { sectionSlug } from '../src/knowledge/index.js';

const idOf = (value: string): string => `id${value.length}x`;

describe('redaction of structured tool data', () => {
  const toolData = {
    password: 'StRuCtPw123',
    api_key: 'abcdef123456789xyz',
    headers: { Authorization: 'Bearer abc123def456ghi789jkl' },
    argv: ['--password', 'ArGvPw321', 'plain'],
    ghp_abcdefghijklmnopqrstuvwxyz0123456789: 1,
    note: 'hello',
    count: 3,
  };
  const { data, findings } = redactEventData('turn.completed', { answer: 'ok', tool_data: toolData }, idOf);
  const stored = JSON.stringify(data);

  it('reads a value under a secret-naming key as that key says', () => {
    expect(stored).not.toContain('StRuCtPw123');
    expect(stored).not.toContain('abcdef123456789xyz');
    expect(stored).not.toContain('abc123def456ghi789jkl');
    expect(findings.map((f) => f.value)).toEqual(expect.arrayContaining(['StRuCtPw123', 'abcdef123456789xyz']));
  });

  it('reads the value after an argv flag with its flag', () => {
    expect(stored).not.toContain('ArGvPw321');
    expect((data as { tool_data: { argv: string[] } }).tool_data.argv).toEqual(['--password', expect.stringMatching(/^⟦secret:password:/), 'plain']);
  });

  it('redacts a key that is itself a secret and keeps its value', () => {
    expect(stored).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    const keys = Object.keys((data as { tool_data: Record<string, unknown> }).tool_data);
    const redactedKey = keys.find((k) => k.startsWith('⟦secret:github-token:'));
    expect(redactedKey).toBeDefined();
    expect((data as { tool_data: Record<string, unknown> }).tool_data[redactedKey!]).toBe(1);
  });

  it('leaves ordinary keys and values as they were', () => {
    const plain = { answer: 'ok', tool_data: { note: 'hello', list: ['-v', 'file.txt'], n: 2 } };
    expect(redactEventData('turn.completed', plain, idOf).data).toBe(plain);
  });
});

describe('section ids of headings that hold a secret', () => {
  it('never carry the secret, and match whether the heading is read as sent or as stored', () => {
    const sent = sectionSlug('db password=lowslugpw4455 and xoxb-323456789012-abcdefghijkl', new Set());
    expect(sent).not.toMatch(/lowslugpw4455|323456789012/);
    const { data } = redactEventData(
      'wiki.upserted',
      { title: 't', sections: [{ heading: 'db password=lowslugpw4455 and xoxb-323456789012-abcdefghijkl', body: 'b' }] },
      idOf,
    );
    const storedHeading = (data as { sections: { heading: string }[] }).sections[0]!.heading;
    expect(storedHeading).toContain('⟦secret:');
    expect(sectionSlug(storedHeading, new Set())).toBe(sent);
  });

  it('keeps the id of a heading without secrets', () => {
    expect(sectionSlug('Server › Instance: close()', new Set())).toBe('server-instance-close');
  });
});

describe('secrets the outside attack found stored as sent', () => {
  const redact = (text: string): string => redactText(text, idOf).text;

  it('a JSON-escaped assignment inside a JSON string', () => {
    expect(redact('{"args": "{\\"password\\": \\"EsCaPeDpw77\\"}"}')).not.toContain('EsCaPeDpw77');
  });

  it('basic auth on a curl or wget command line, and not other -u flags', () => {
    expect(redact('curl -u admin:CuRlPaSs44 https://api.example.com')).toBe(`curl -u admin:⟦secret:password:${idOf('CuRlPaSs44')}⟧ https://api.example.com`);
    expect(redact('wget --user "bob:s3cr3tPw" https://x.example')).not.toContain('s3cr3tPw');
    for (const plain of ['git log -u main:file.txt', 'time -u 12:30:45', 'sort -u a:b', 'curl -u $USER:$PASS x']) expect(redact(plain)).toBe(plain);
  });
});
