// A person's uuid is derived from the project and the distinct id that created it
// (UUIDv5 in PostHog's namespace), so hedgerow names people exactly as PostHog does.
// Computed here rather than with the uuid package: its v5 re-parses the namespace and
// re-encodes the name on every call, which showed in the consumer's profile.
import { createHash } from 'node:crypto';

const PERSON_NAMESPACE = Buffer.from('932979b465c3442484670b66ec27bc22', 'hex');

export function personUuid(projectId: number, distinctId: string): string {
  const bytes = createHash('sha1').update(PERSON_NAMESPACE).update(`${projectId}:${distinctId}`, 'utf8').digest();
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
