// Passwords: scrypt (memory-hard; node:crypto), a random salt each, the parameters kept in
// the stored string so they can be raised later without invalidating what is stored.
// N = 2^15, r = 8: 32 MiB and some 100 ms per hash, OWASP's floor for scrypt.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
// scrypt needs 128·N·r bytes; node refuses above maxmem (32 MiB by default).
const maxmem = (n: number, r: number) => 256 * n * r;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, { N: n, r, p, maxmem: maxmem(n, r) }, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

// `scrypt$N$r$p$salt$hash`, base64url. `n`: tests that sign in often store cheaper hashes
// (what verifies a hash is the parameters it was stored with).
export async function hashPassword(password: string, n = N): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, n, R, P);
  return ['scrypt', n, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), Number(n), Number(r), Number(p));
  return key.length === expected.length && timingSafeEqual(key, expected);
}

// Verified against when the email names nobody, so that an unknown email takes as long
// as a wrong password and the answer's timing does not say which emails exist.
let decoy: Promise<string> | null = null;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword(randomBytes(16).toString('hex')));

// The shortest password `hedgerow user password` accepts.
export const MIN_PASSWORD_LENGTH = 8;
