/**
 * Finds secrets in untrusted input before any handler sees it (SPEC Authentication 9).
 * Reports where and what kind, never the value itself, so the refusal can be explained
 * without repeating the secret into logs or storage.
 */

interface SecretShape {
  kind: string;
  pattern: RegExp;
}

// Distinctive prefixes match anywhere, even glued to other text (`key_cd_prj_…`, `xAKIA…`):
// a leading \b would let a secret through just by prefixing a word character.
const NOT_AFTER_ALNUM = '(?<![A-Za-z0-9])';
const SHAPES: SecretShape[] = [
  { kind: 'CAIRN_TOKEN', pattern: /cd_(?:acc|ref|dev|boot|prj|own)_[a-z2-7]{16,}/i },
  { kind: 'JWT', pattern: /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
  { kind: 'PRIVATE_KEY', pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/ },
  { kind: 'AWS_ACCESS_KEY', pattern: /(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}(?![0-9A-Z])/ },
  { kind: 'GITHUB_TOKEN', pattern: /(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/ },
  { kind: 'GITLAB_TOKEN', pattern: /glpat-[A-Za-z0-9_-]{20,}/ },
  { kind: 'SLACK_TOKEN', pattern: new RegExp(`${NOT_AFTER_ALNUM}xox[abposr]-[A-Za-z0-9-]{10,}`) },
  { kind: 'STRIPE_KEY', pattern: new RegExp(`${NOT_AFTER_ALNUM}(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`) },
  {
    kind: 'OPENAI_OR_ANTHROPIC_KEY',
    pattern: new RegExp(`${NOT_AFTER_ALNUM}sk-(?:proj-|ant-(?:api\\d\\d-)?)?[A-Za-z0-9_-]{32,}`),
  },
  { kind: 'GOOGLE_API_KEY', pattern: /AIza[0-9A-Za-z_-]{35}/ },
  { kind: 'NPM_TOKEN', pattern: new RegExp(`${NOT_AFTER_ALNUM}npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])`) },
  { kind: 'BEARER_CREDENTIAL', pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/i },
];

export interface CredentialHit {
  /** Where in the input, e.g. `contacts[1]` (never the value). */
  path: string;
  kind: string;
}

/**
 * Cairn's own ids (`prefix_` and a ULID: 26 Crockford base32 characters), passed over before the
 * shapes are tried: a ULID's time part runs through every letter pair in turn, so for a
 * millisecond now and then a fresh id carries `AGPA` and sixteen more capitals, which is the
 * shape of an AWS access key id (seen refusing a campaign tool's own context). No secret shape
 * fits inside such an id but that one, which AWS uses for group ids, not for secrets.
 */
const CAIRN_ID = /(?<![A-Za-z0-9_])[a-z]{2,8}_[0-9A-HJKMNP-TV-Z]{26}(?![A-Za-z0-9])/g;

/** Returns the first secret-shaped string in a JSON-like value, or null. Object keys are scanned too. */
export function findCredential(value: unknown, path = ''): CredentialHit | null {
  if (typeof value === 'string') {
    const text = value.replace(CAIRN_ID, ' ');
    for (const shape of SHAPES) {
      if (shape.pattern.test(text)) return { path: path || '(root)', kind: shape.kind };
    }
    return null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findCredential(value[i], `${path}[${i}]`);
      if (hit) return hit;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, inner] of Object.entries(value)) {
      // A secret used as a key must not be echoed back in the path either.
      const keyHit = findCredential(key);
      if (keyHit) return { path: `${path || '(root)'} (an object key)`, kind: keyHit.kind };
      const hit = findCredential(inner, path ? `${path}.${key}` : key);
      if (hit) return hit;
    }
  }
  return null;
}

const CAIRN_SECRET = /(cd_(?:acc|ref|dev|boot|prj|own)_)([a-z2-7]{16,})/gi;

/**
 * Masks Cairn's own credentials in text that other readers will see (issue 40: a live project
 * key mailed to a campaign became evidence that members without a mail grant read). Each secret
 * keeps its prefix and length, its secret part turned to `*`, so offsets into the text (the
 * instruction spans) stay true. Answers the text and how many were masked.
 */
export function maskCairnCredentials(text: string): { text: string; masked: number } {
  let masked = 0;
  const out = text.replace(CAIRN_SECRET, (_whole, prefix: string, secret: string) => {
    masked++;
    return prefix + '*'.repeat(secret.length);
  });
  return { text: masked > 0 ? out : text, masked };
}
