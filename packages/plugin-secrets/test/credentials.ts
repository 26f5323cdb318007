// Realistic credentials for every rule of secretlint's recommended preset, generated from a seed: the
// formats the services issue (prefixes, alphabets, lengths, checksummed shapes), with random bodies — not
// the documentation's EXAMPLE values, which some rules allow-list. Nothing here is a literal credential a
// secret scanner (or a push protection) would stop on: every value is assembled at run time.

/** One generated credential: the rule that must find it, the credential itself, and a text holding it. */
export interface GeneratedCredential {
  rule: string;
  /** What a redaction must remove entirely. */
  secret: string;
  /** Where it appears, as a person would paste it. */
  text: string;
}

/** mulberry32: a small seeded generator, so a failing case can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const BASE32 = `${UPPER}234567`;

type Generator = (random: () => number) => GeneratedCredential;

/** The generators, by the rule's short name; every rule of the preset must have one (a test checks). */
export const GENERATORS: Readonly<Record<string, Generator>> = {
  aws: (r) => {
    const id = `${pick(r, ['AKIA', 'ASIA'])}${chars(r, BASE32, 16)}`;
    const secret = chars(r, `${ALNUM}/+`, 40);
    return {
      rule: 'aws',
      secret: id,
      text: `[default]\naws_access_key_id = ${id}\naws_secret_access_key = ${secret}\n`,
    };
  },
  gcp: (r) => {
    const key = pem(r, 'PRIVATE KEY');
    const json = JSON.stringify({
      type: 'service_account',
      project_id: `proj-${chars(r, LOWER + DIGITS, 8)}`,
      private_key_id: chars(r, HEX, 40),
      private_key: `${key}\n`,
      client_email: `svc@proj-${chars(r, LOWER, 6)}.iam.gserviceaccount.com`,
    });
    return { rule: 'gcp', secret: json, text: json };
  },
  privatekey: (r) => {
    const key = pem(r, 'RSA PRIVATE KEY');
    return { rule: 'privatekey', secret: key, text: `deploy key:\n${key}\n` };
  },
  npm: (r) => {
    const token = `${'npm'}_${chars(r, ALNUM, 36)}`;
    return { rule: 'npm', secret: token, text: `//registry.npmjs.org/:_authToken=${token}` };
  },
  basicauth: (r) => {
    const password = chars(r, ALNUM, 16);
    return {
      rule: 'basicauth',
      secret: password,
      text: `mirror: https://deploy-${chars(r, LOWER, 5)}:${password}@artifacts.example.com/repo`,
    };
  },
  slack: (r) => {
    const token = [
      pick(r, ['xoxb', 'xoxp']),
      chars(r, DIGITS, 12),
      chars(r, DIGITS, 13),
      chars(r, ALNUM, 24),
    ].join('-');
    return { rule: 'slack', secret: token, text: `SLACK_BOT_TOKEN=${token}` };
  },
  sendgrid: (r) => {
    const key = `SG.${chars(r, ALNUM, 22)}.${chars(r, ALNUM, 43)}`;
    return { rule: 'sendgrid', secret: key, text: `sendgrid api key: ${key}` };
  },
  shopify: (r) => {
    const token = `${pick(r, ['shpat', 'shpss'])}_${chars(r, HEX, 32)}`;
    return { rule: 'shopify', secret: token, text: `X-Shopify-Access-Token: ${token}` };
  },
  github: (r) => {
    const token = `${pick(r, ['ghp', 'gho', 'ghs'])}_${chars(r, ALNUM, 36)}`;
    return {
      rule: 'github',
      secret: token,
      text: `git remote set-url origin https://x:${token}@github.com/acme/app`,
    };
  },
  gitlab: (r) => {
    const token = `${'glpat'}-${chars(r, ALNUM, 20)}`;
    return { rule: 'gitlab', secret: token, text: `PRIVATE-TOKEN: ${token}` };
  },
  grafana: (r) => {
    const token = `${'glsa'}_${chars(r, ALNUM, 32)}_${chars(r, HEX, 8)}`;
    return { rule: 'grafana', secret: token, text: `grafana: { token: "${token}" }` };
  },
  openai: (r) => {
    const key = `sk-proj-${chars(r, ALNUM, 74)}${'T3Blbk'}FJ${chars(r, ALNUM, 74)}`;
    return { rule: 'openai', secret: key, text: `OPENAI_API_KEY=${key}` };
  },
  anthropic: (r) => {
    const key = `sk-ant-api03-${chars(r, `${ALNUM}_-`, 93)}AA`;
    return { rule: 'anthropic', secret: key, text: `x-api-key: ${key}` };
  },
  groq: (r) => {
    const key = `${'gsk'}_${chars(r, ALNUM, 52)}`;
    return { rule: 'groq', secret: key, text: `GROQ_API_KEY=${key}` };
  },
  huggingface: (r) => {
    const token = `${'hf'}_${chars(r, UPPER + LOWER, 34)}`;
    return { rule: 'huggingface', secret: token, text: `huggingface-cli login --token ${token}` };
  },
  linear: (r) => {
    const key = `${'lin_api'}_${chars(r, ALNUM, 40)}`;
    return { rule: 'linear', secret: key, text: `Authorization: ${key}` };
  },
  notion: (r) => {
    const token = `${'ntn'}_${chars(r, DIGITS, 11)}${chars(r, ALNUM, 35)}`;
    return { rule: 'notion', secret: token, text: `NOTION_TOKEN=${token}` };
  },
  '1password': (r) => {
    const json = JSON.stringify({
      signInAddress: 'acme.1password.com',
      userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 650000, salt: chars(r, ALNUM, 22) },
      email: `${chars(r, LOWER, 12)}@1passwordserviceaccounts.com`,
      srpX: chars(r, HEX, 64),
      muk: { alg: 'A256GCM', ext: true, k: chars(r, ALNUM, 43), key_ops: ['encrypt', 'decrypt'], kty: 'oct' },
      secretKey: `A3-${chars(r, UPPER + DIGITS, 6)}-${chars(r, UPPER + DIGITS, 6)}`,
      deviceUuid: chars(r, LOWER + DIGITS, 26),
    });
    // Base64 of a JSON object ends in `fQ` when its length leaves one byte over a multiple of three.
    const body = `${json.slice(0, -1)}${' '.repeat((((1 - json.length) % 3) + 3) % 3)}}`;
    const token = `${'ops'}_${Buffer.from(body).toString('base64').replace(/=+$/, '')}`;
    return { rule: '1password', secret: token, text: `OP_SERVICE_ACCOUNT_TOKEN=${token}` };
  },
  'database-connection-string': (r) => {
    const password = chars(r, ALNUM, 18);
    const scheme = pick(r, ['postgres', 'mysql', 'mongodb']);
    return {
      rule: 'database-connection-string',
      secret: password,
      text: `DATABASE_URL=${scheme}://app_${chars(r, LOWER, 4)}:${password}@db-${chars(r, LOWER, 6)}.internal:5432/orders`,
    };
  },
  'hashicorp-vault': (r) => {
    const token = `${'hvs'}.${chars(r, `${ALNUM}_-`, 95)}`;
    return { rule: 'hashicorp-vault', secret: token, text: `VAULT_TOKEN=${token}` };
  },
  vercel: (r) => {
    const token = `${pick(r, ['vcp', 'vck'])}_${chars(r, ALNUM, 24)}`;
    return { rule: 'vercel', secret: token, text: `vercel --token ${token} deploy` };
  },
  databricks: (r) => {
    const token = `${'dapi'}${chars(r, HEX, 32)}`;
    return { rule: 'databricks', secret: token, text: `DATABRICKS_TOKEN=${token}` };
  },
  docker: (r) => {
    const token = `${'dckr'}_pat_${chars(r, `${ALNUM}_-`, 27)}`;
    return { rule: 'docker', secret: token, text: `docker login -u ci -p ${token}` };
  },
  figma: (r) => {
    const token = `${'figd'}_${chars(r, `${ALNUM}_-`, 40)}`;
    return { rule: 'figma', secret: token, text: `X-Figma-Token: ${token}` };
  },
};

/** `count` credentials of `rule`, from `seed`. */
export function generate(rule: string, seed: number, count = 1): GeneratedCredential[] {
  const generator = Object.hasOwn(GENERATORS, rule) ? GENERATORS[rule] : undefined;
  if (!generator) throw new Error(`no generator for rule ${rule}`);
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => generator(random));
}

function chars(random: () => number, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

function pick<T>(random: () => number, options: readonly T[]): T {
  return options[Math.floor(random() * options.length)]!;
}

/** A PEM block whose body is base64 starting like a DER sequence (`MII…`), as real keys do. */
function pem(random: () => number, label: string): string {
  const body = `MIIEv${chars(random, `${ALNUM}+/`, 251)}`;
  const lines = body.match(/.{1,64}/g) ?? [];
  return [`-----BEGIN ${label}-----`, ...lines, `-----END ${label}-----`].join('\n');
}
