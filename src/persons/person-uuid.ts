// A person's uuid is derived from the project and the distinct id that created it
// (UUIDv5 in PostHog's namespace), so hedgerow names people exactly as PostHog does.
import { v5 as uuidv5 } from 'uuid';

const PERSON_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';

export function personUuid(projectId: number, distinctId: string): string {
  return uuidv5(`${projectId}:${distinctId}`, PERSON_NAMESPACE);
}
