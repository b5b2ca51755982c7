// Key material: generation, hashing and constant-time comparison. Personal API keys
// are secrets and only their SHA-256 is stored; project API keys are public
// identifiers (shipped in every web page, returned by the projects API) and are
// looked up by their hash too, so no comparison ever runs over a raw key.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomToken(length: number): string {
  // Rejection sampling keeps every character uniform over the 62-letter alphabet.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

export const newProjectApiKey = () => `phc_${randomToken(43)}`;
export const newPersonalApiKey = () => `phx_${randomToken(47)}`;

export function hashKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

// What a listing may show of a key: PostHog's mask_value style.
export function maskKey(key: string): string {
  return `${key.slice(0, 4)}...${key.slice(-4)}`;
}
