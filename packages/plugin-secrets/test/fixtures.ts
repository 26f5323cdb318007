// Fake credentials in the documented formats the recommended rules flag. They are assembled at run
// time so that this file holds no literal a secret scanner (or a push protection) would stop on.

const join = (...parts: string[]) => parts.join('');

/** A GitHub personal access token (`ghp_` + 36 characters): rule `github`. */
export const GITHUB_TOKEN = join('ghp', '_', 'wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx');
/** A Slack bot token: rule `slack`. */
export const SLACK_TOKEN = join('xox', 'b-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx');
/** An npm access token: rule `npm`. */
export const NPM_TOKEN = join('npm', '_', '1234567890abcdefghijklmnopqrstuvwxyz');
/** An AWS secret access key (40 characters, not the documented EXAMPLE key, which the rule allows). */
export const AWS_SECRET = join('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYzzzzzzzzzz');
/** An AWS access key id (flagged only as part of the pair, by the secret's assignment). */
export const AWS_KEY_ID = join('AKIA', 'IOSFODNN7ABCDEFG');
/** The AWS pair as a shell profile holds it: rule `aws`. */
export const AWS_PAIR = `aws_access_key_id = ${AWS_KEY_ID}\naws_secret_access_key = ${AWS_SECRET}`;
/** A PEM private key block (base64 body starting like a DER sequence): rule `privatekey`. */
export const PRIVATE_KEY = [
  join('-----BEGIN RSA ', 'PRIVATE KEY-----'),
  join('MIIEpAIBAAKCAQEA', 'x'.repeat(48)),
  'y'.repeat(64),
  'z'.repeat(64),
  join('-----END RSA ', 'PRIVATE KEY-----'),
].join('\n');
/** A PostgreSQL connection string with a password: rule `database-connection-string`. */
export const POSTGRES_URL = join('postgres://admin:', 's3cr3tpassw0rd', '@db.example.com:5432/app');

/** Ordinary text that mentions credentials without holding any. */
export const PLAIN_TEXTS = [
  'The quick brown fox jumps over the lazy dog.',
  'GitHub tokens start with ghp_ and are 40 characters long; AWS key ids start with AKIA.',
  'password: see the vault',
  'aws_secret_access_key = <your key here>',
  'https://example.com/docs?page=2&sort=asc',
  '-----BEGIN CERTIFICATE----- is not a private key',
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  JSON.stringify({ id: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890', count: 3 }),
];
