// The secret rules (issue 33): common credential formats, each a regular expression whose
// `value` group is the part replaced by a placeholder. A rule set rather than a library: no npm
// detector fits (secretlint is a lint framework built around files and config; gitleaks and
// detect-secrets are Go and Python), these run offline in microseconds on every event, and they
// know Kioku's own placeholders and Chinese labels. Every rule is linear (no nested quantifiers),
// so a 1 MB imported document costs a few milliseconds. The corpus in evals/privacy/ measures them
// (`npm run eval:secrets`).

/** What a found secret is; the `kind` part of its placeholder. */
export const SECRET_KINDS = [
  'private-key',
  'aws-access-key',
  'aws-secret-key',
  'gcp-api-key',
  'gcp-oauth-token',
  'azure-key',
  'openai-key',
  'anthropic-key',
  'github-token',
  'gitlab-token',
  'slack-token',
  'slack-webhook',
  'discord-webhook',
  'stripe-key',
  'npm-token',
  'huggingface-token',
  'sendgrid-key',
  'twilio-key',
  'google-oauth-secret',
  'telegram-token',
  'jwt',
  'bearer-token',
  'basic-auth',
  'url-password',
  'password',
  'api-key',
  'secret',
  'token',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface SecretRule {
  kind: SecretKind;
  /** the rule runs only on a text holding one of these (a plain substring search, far cheaper than the expression) */
  hints: readonly string[];
  /** the hints are lower case and looked for in the lower-cased text */
  lowerCase?: boolean;
  /** global; the named group `value` (or the whole match) is the secret */
  pattern: RegExp;
  /** refuse a match that only looks like one (a template, a word of prose, a line of code) */
  accept?: (value: string, match: RegExpExecArray) => boolean;
  /** the kind, when one rule finds several (the label decides) */
  kindOf?: (match: RegExpExecArray) => SecretKind;
}

/** Format rules: a prefix or shape no ordinary text has. Tried before the assignment rules, so they name the kind. */
const FORMAT_RULES: SecretRule[] = [
  {
    kind: 'private-key', hints: ['PRIVATE KEY'],
    // a whole PEM block (also inside JSON with \n escapes); a block cut short loses every base64 line that follows
    pattern: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,16000}?-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----|(?:(?:\\n|\r?\n)[A-Za-z0-9+/=:\- ]{8,})+)/gd,
  },
  { kind: 'aws-access-key', hints: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'], pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Za-z0-9])/gd },
  {
    kind: 'aws-secret-key', hints: ['aws_', 'AWS_', 'awsSecret', 'AWSSecret'],
    pattern: /aws_?secret_?(?:access_?)?key["']?\s*(?:=|:|=>)\s*["']?(?<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gid,
  },
  { kind: 'gcp-api-key', hints: ['AIza'], pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{33,40}(?![A-Za-z0-9_-])/gd },
  { kind: 'gcp-oauth-token', hints: ['ya29.'], pattern: /(?<![A-Za-z0-9_-])ya29\.[0-9A-Za-z_-]{20,}/gd },
  { kind: 'google-oauth-secret', hints: ['GOCSPX-'], pattern: /(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{24,}/gd },
  {
    kind: 'azure-key', hints: ['AccountKey', 'SharedAccess', 'sig='],
    pattern: /(?:AccountKey|SharedAccessKey|SharedAccessSignature)\s*=\s*(?<value>[A-Za-z0-9+/%]{20,}={0,2})|[?&]sig=(?<sig>[A-Za-z0-9%+/]{30,}={0,2})/gd,
  },
  { kind: 'anthropic-key', hints: ['sk-ant-'], pattern: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/gd },
  {
    kind: 'openai-key', hints: ['sk-'],
    pattern: /(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/gd,
    // sk-learn-style words joined by hyphens are prose; a key has digits and mixed case
    accept: (value) => /\d/.test(value) && /[A-Z]/.test(value) && /[a-z]/.test(value.slice(3)),
  },
  { kind: 'github-token', hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'], pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])/gd },
  { kind: 'gitlab-token', hints: ['glpat-'], pattern: /(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}/gd },
  { kind: 'slack-token', hints: ['xox'], pattern: /(?<![A-Za-z0-9_-])xox[abprse](?:\.xox[a-z])?-(?:[A-Za-z0-9]{1,40}-){0,5}[A-Za-z0-9]{10,}/gd },
  { kind: 'slack-webhook', hints: ['hooks.slack.com'], pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,}/gd },
  { kind: 'discord-webhook', hints: ['/api/webhooks/'], pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d{5,}\/[A-Za-z0-9_-]{20,}/gd },
  // publishable keys (pk_live_) are meant to be public and stay
  { kind: 'stripe-key', hints: ['_live_', '_test_', 'whsec_'], pattern: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[0-9a-zA-Z]{16,}|(?<![A-Za-z0-9_])whsec_[A-Za-z0-9]{24,}/gd },
  { kind: 'npm-token', hints: ['npm_'], pattern: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{34,40}(?![A-Za-z0-9])/gd },
  { kind: 'huggingface-token', hints: ['hf_'], pattern: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/gd },
  { kind: 'sendgrid-key', hints: ['SG.'], pattern: /(?<![A-Za-z0-9_])SG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{30,64}/gd },
  { kind: 'twilio-key', hints: ['SK'], pattern: /(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])/gd },
  { kind: 'telegram-token', hints: [':AA'], pattern: /(?<![A-Za-z0-9])\d{8,10}:AA[A-Za-z0-9_-]{32,36}(?![A-Za-z0-9_-])/gd },
  { kind: 'jwt', hints: ['eyJ'], pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/gd },
  {
    kind: 'url-password', hints: ['://'],
    // scheme://user:password@host — only the password part; the user and host stay readable. The
    // scheme is a lookbehind so the search starts at the literal ://
    // (a # is taken into the password: pasted raw, it is not a fragment, since a host follows)
    pattern: /(?<=(?:^|[^A-Za-z0-9+.-])[A-Za-z][A-Za-z0-9+.-]{1,30}):\/\/[^\s:/?#@'"<>]*:(?<value>[^\s@/?'"<>]+)@[^\s/?#'"<>@]+/gd,
    accept: (value) => !isTemplate(value),
  },
  {
    kind: 'url-password', hints: ['%3a%2f%2f'], lowerCase: true,
    // the same, URL-encoded (a connection string inside a query string or a config value):
    // scheme%3A%2F%2Fuser%3Apassword%40host — the password is what lies between %3A and %40
    pattern: /(?<=[A-Za-z][A-Za-z0-9+.-]{1,30})%3A%2F%2F(?:[A-Za-z0-9._~!$'()*+,;=-]|%(?!3A|40)[0-9A-F]{2}){0,200}%3A(?<value>(?:[A-Za-z0-9._~!$'()*+,;=-]|%(?!40)[0-9A-F]{2}){1,200})%40(?=[A-Za-z0-9])/gid,
    accept: (value) => !isTemplate(decodeURIComponentSafe(value)),
  },
  {
    kind: 'url-password', hints: ['%253a%252f%252f'], lowerCase: true,
    // URL-encoded twice (a connection string in a query string inside another): every % is %25
    pattern: /(?<=[A-Za-z][A-Za-z0-9+.-]{1,30})%253A%252F%252F(?:[A-Za-z0-9._~!$'()*+,;=-]|%25(?!3A|40)[0-9A-F]{2}){0,200}%253A(?<value>(?:[A-Za-z0-9._~!$'()*+,;=-]|%25(?!40)[0-9A-F]{2}){1,200})%2540(?=[A-Za-z0-9])/gid,
    accept: (value) => !isTemplate(decodeURIComponentSafe(decodeURIComponentSafe(value))),
  },
  // an AWS secret access key with no label, beside the access key id it belongs to (a pasted pair,
  // a credentials.csv line): 40 base64 characters of mixed case and digits (a commit id is hex)
  {
    kind: 'aws-secret-key', hints: ['AKIA', 'ASIA'],
    pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])[^\n]{0,80}?(?:\n[^\n]{0,80}?)?(?<![A-Za-z0-9/+])(?<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gd,
    accept: (value) => /\d/.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value),
  },
  // --password VALUE: a command line's flag and its value apart
  {
    kind: 'password',
    hints: ['--pass', '--token', '--api-key', '--secret'],
    pattern: /--(?:password|passwd|pass|token|api-key|secret)[ \t]+(?<value>[^\s'"-][^\s'"]{3,})/gd,
    accept: (value) => !isTemplate(value) && /[\d\W]|[a-z][A-Z]/.test(value),
  },
  // curl -u user:pass, wget --user user:pass: basic auth on a command line (only after curl/wget: `-u a:b` means other things elsewhere)
  {
    kind: 'password',
    hints: ['curl', 'wget'],
    pattern: /\b(?:curl|wget)\b[^\n]{0,200}?\s(?:-u|--user)(?:[ \t]+|=)["']?[^\s:"'@]{1,64}:(?<value>[^\s"'@]{4,200})/gd,
    accept: (value) => !isTemplate(value),
  },
  // mysql -pSECRET: the password glued to the flag
  { kind: 'password', hints: ['mysql'], pattern: /\bmysql(?:dump|admin)?\b[^\n]{0,200}?\s-p(?<value>[^\s'"]{4,})/gd, accept: (value) => !isTemplate(value) },
  {
    kind: 'bearer-token', hints: ['Bearer'],
    pattern: /\bBearer\s+(?<value>[A-Za-z0-9._~+/-]{20,}=*)/gd,
    accept: (value) => /\d/.test(value) && !isTemplate(value),
  },
  {
    kind: 'basic-auth', hints: ['Basic'],
    pattern: /\bBasic\s+(?<value>[A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])/gd,
    accept: (value) => isBasicCredential(value),
  },
];

// The labels of an assignment, by the kind they name. A key ends with one of them (DB_PASSWORD,
// client_secret, x-api-key, apiKey); `tokens` is not one (max_tokens: 4096 is a model setting).
const PASSWORD_LABEL = String.raw`(?:password|passwd|passphrase|pwd|pass)`;
const API_KEY_LABEL = String.raw`(?:api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?key|private[_-]?key|auth[_-]?key|signing[_-]?key|encryption[_-]?key|master[_-]?key)`;
const SECRET_LABEL = String.raw`(?:secret|client[_-]?secret|credentials?)`;
const TOKEN_LABEL = String.raw`(?:token|access[_-]?token|auth[_-]?token|refresh[_-]?token|session[_-]?token|bot[_-]?token)`;
const CJK_PASSWORD = '(?:密码|密碼|口令|登录密码|登入密碼|支付密码|パスワード)';
const CJK_KEY = '(?:密钥|秘钥|私钥)';
const CJK_TOKEN = '(?:令牌)';

/** what may come before the label in a key: DB_, x-api-, a camelCase start (dbPassword), a CLI flag's dashes */
const KEY_PREFIX = String.raw`(?<![A-Za-z0-9])(?:--?)?(?<prefix>[A-Za-z0-9]*[_.-]?)`;
/** after the key: an optional closing quote, then `=`, `:`, `=>`, a full-width colon, or `is` / `是` / `为` */
const SEPARATOR = String.raw`\\?["']?\s{0,3}(?:=>|=|:|：|\bis\b|\bwas\b|是|为|為)\s{0,3}`;
/** a quoted value (also JSON-escaped, `\"…\"`, as in a JSON string inside JSON), or everything up to whitespace or a quote */
const VALUE = String.raw`(?:\\"(?<edq>[^"\\\n]{1,400})\\"|"(?<dq>[^"\\\n]{1,400})"|'(?<sq>[^'\\\n]{1,400})'|\x60(?<bq>[^\x60\n]{1,400})\x60|(?<bare>[^\s"'\x60<>]{1,400}))`;

/**
 * One pass for every English label: the search starts at the label, and what comes before it
 * (DB_, x-api-, --) is checked where a label matched (labelStandsAlone).
 */
const ASSIGNMENT = new RegExp(
  `(?:(?<password>${PASSWORD_LABEL})|(?<apikey>${API_KEY_LABEL})|(?<secret>${SECRET_LABEL})|(?<token>${TOKEN_LABEL}))${SEPARATOR}${VALUE}`,
  'gid',
);

/** The kind an assignment names, by the label group that matched. */
export function assignmentKind(match: RegExpExecArray): SecretKind {
  const g = match.groups ?? {};
  if (g['password'] !== undefined) return 'password';
  if (g['apikey'] !== undefined) return 'api-key';
  if (g['secret'] !== undefined) return 'secret';
  return 'token';
}

function cjkAssignment(label: string): RegExp {
  // 密码是 x, 密码：x, and the prose of a changed one: 密码就是 / 改成了 / 设为 x
  return new RegExp(`${label}[^\\S\\n]{0,2}(?:就是|改成了?|改为|改為|换成了?|設置為|设置为|设为|設為|[:：=]|是|为|為|は)?[^\\S\\n]{0,2}${VALUE}`, 'gd');
}

/**
 * A password prose names without a key: "the password for the NAS is X", "the wifi password is now
 * X", "I changed my password to X". The value must still look like one (acceptAssigned: a digit, a
 * symbol or mixed case), so "the password is too short" and "… is in 1Password" stay.
 */
const PROSE_PASSWORD = new RegExp(
  String.raw`\b(?<password>password|passwd|passcode|passphrase)\b(?:\s+(?:for|of|to|on|at)\s+[^\n.,;:!?]{1,40}?)?\s+(?:is\s+now|is|was|(?:changed\s+|set\s+|reset\s+)?to)\s+${VALUE}`,
  'gid',
);

/** Assignment rules: a label the text gives the value (`password=`, `"api_key": "…"`, `密码：…`). */
const ASSIGNMENT_RULES: SecretRule[] = [
  { kind: 'token', hints: ['pass', 'pwd', 'secret', 'key', 'token', 'credential'], lowerCase: true, pattern: ASSIGNMENT, kindOf: assignmentKind, accept: (v, m) => acceptAssigned(v, m, assignmentKind(m) === 'password' ? 4 : 8) },
  { kind: 'password', hints: ['密码', '密碼', '口令', 'パスワード'], pattern: cjkAssignment(CJK_PASSWORD), accept: (v, m) => acceptAssigned(v, m, 4) },
  { kind: 'api-key', hints: ['钥'], pattern: cjkAssignment(CJK_KEY), accept: (v, m) => acceptAssigned(v, m, 8) },
  { kind: 'token', hints: ['令牌'], pattern: cjkAssignment(CJK_TOKEN), accept: (v, m) => acceptAssigned(v, m, 8) },
  { kind: 'password', hints: ['pass'], lowerCase: true, pattern: PROSE_PASSWORD, accept: (v, m) => acceptAssigned(v, m, 6) },
];

/** Every rule, most specific first: where two overlap, the earlier one names the kind. */
export const SECRET_RULES: readonly SecretRule[] = [...FORMAT_RULES, ...ASSIGNMENT_RULES];

/** The value an assignment match assigns: the quoted text, or the bare word cut where a connection string or query ends it. */
export function assignedValue(match: RegExpExecArray): { value: string; quoted: boolean } | undefined {
  const g = match.groups ?? {};
  const quoted = g['edq'] ?? g['dq'] ?? g['sq'] ?? g['bq'];
  if (quoted !== undefined) return { value: quoted, quoted: true };
  const bare = g['bare'];
  if (bare === undefined) return undefined;
  // Password=x;Database=y (ADO) and ?password=x&user=y (a URL query) end at ; or & after an `=`;
  // after `is`, `:` or in prose the whole word is the value (Tr0ub4dor&3horse); 密码是abc123，然后… ends at Chinese prose
  const start = match.indices?.groups?.['bare']?.[0] ?? match.index;
  const keyed = /=\s*$/.test(match.input.slice(match.index, start));
  const cut = bare.split(keyed ? /[;&，。；、！？]|\p{Script=Han}/u : /[，。；、！？]|\p{Script=Han}|\p{Script=Hiragana}/u)[0] ?? '';
  return { value: cut.replace(/[.,;:)\]}，。；：）】]+$/u, ''), quoted: false };
}

/**
 * Whether an assigned value is a secret rather than a template, a type, a line of code or a word
 * of prose ("password: required", "token: the one we got"). Quoted values are taken as given;
 * a bare value needs a digit, a symbol or mixed case.
 */
function acceptAssigned(value: string, match: RegExpExecArray, min: number): boolean {
  const quoted = (match.groups?.['edq'] ?? match.groups?.['dq'] ?? match.groups?.['sq'] ?? match.groups?.['bq']) !== undefined;
  if (value.length < min || isTemplate(value) || !labelStandsAlone(match)) return false;
  if (/^\d+$/.test(value) && min > 4) return false; // token: 4096, api_key: 12 are counts, not keys
  if (quoted) return !/^[a-z]+$/.test(value) || value.length >= 12;
  if (/^[A-Za-z_$][\w$]*(?:(?:\.|\?\.)[A-Za-z_$][\w$]*)+(?:\(.*\))?$|^[A-Za-z_$][\w$.]*\(|^[A-Za-z_$][\w$]*\[/.test(value)) return false; // code
  const letters = /^[A-Za-z]+$/.test(value);
  if (letters && !/[a-z][A-Z]|[A-Z]{2}[a-z]/.test(value)) return false; // a word (Required, changed, None)
  if (/^[\p{Script=Han}\p{P}]+$/u.test(value)) return false; // Chinese prose after 密码
  return true;
}

/** The label is a key of its own (DB_PASSWORD, dbPassword, apiKey), not the end of a word (bypass, compass, mytoken). */
function labelStandsAlone(match: RegExpExecArray): boolean {
  // what comes before the label (DB_, x-api-, dbPassword's db, --), read back from the text here
  // rather than as a lookbehind the expression would try at every position
  const start = Math.max(0, match.index - 44);
  const before = match.input.slice(start, match.index);
  const m = (start === 0 ? /(?:^|[^A-Za-z0-9])-{0,2}([A-Za-z0-9]{0,40}[_.-]?)$/ : /[^A-Za-z0-9]-{0,2}([A-Za-z0-9]{0,40}[_.-]?)$/).exec(before);
  if (!m) return false;
  const prefix = m[1] ?? '';
  if (!prefix || /[_.-]$/.test(prefix)) return true;
  const g = match.groups ?? {};
  const label = g['password'] ?? g['apikey'] ?? g['secret'] ?? g['token'] ?? '';
  // PGPASSWORD, MYSQLTOKEN: an environment variable's name in capitals (not BYPASS: a short label glued on)
  if (/^[A-Z0-9]+$/.test(prefix) && /^[A-Z]{5,}$/.test(label)) return true;
  return /^[A-Z]/.test(label) && /[a-z0-9]$/.test(prefix);
}

/** A stand-in, not a value: `${DB_PASSWORD}`, `<token>`, `****`, `YOUR_API_KEY`, `xxx`, `{{secret}}`, `%s`, `null`. */
export function isTemplate(value: string): boolean {
  if (value.startsWith('⟦')) return true;
  if (/^\$\{[^}]*\}?$|^\$[A-Za-z_][A-Za-z0-9_]*$|^\{\{.*\}\}$|^<[^>]*>$|^\[[^\]]*\]$|^%[sd]$|^\{[A-Za-z_]*\}$/.test(value)) return true;
  if (/^(?:\*+|x+|X+|\.+|…+|-+|#+|•+)$/.test(value)) return true;
  if (/^(?:null|none|nil|undefined|true|false|empty|redacted|hidden|required|optional|string|str|changeme|password|passwd|pass|pwd|secret|token)$/i.test(value)) return true;
  if (/^(?:YOUR|MY|SOME|THE|ENTER|INSERT|REPLACE)[_-]/i.test(value) || /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/.test(value)) return true;
  if (/^process\.env\.|^os\.environ|^env\(|^getenv\(/i.test(value)) return true;
  return false;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `Basic` followed by base64 of `user:password` (not any capitalised word that precedes a long token). */
function isBasicCredential(value: string): boolean {
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  return /^[\x20-\x7e]{1,100}:[\x20-\x7e]{1,200}$/.test(decoded);
}
