// The explicit-member rules, pure: field parsing, then PostHog's checks in its order.
import { errors } from '../../errors.js';
import { MemberLevel } from './access.js';

export interface MemberWrite {
  userUuid?: string;
  level?: number;
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const LEVELS: readonly number[] = [MemberLevel.member, MemberLevel.admin];

function canonicalUuid(raw: string): string {
  const hex = raw.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export function parseMemberWrite(body: Record<string, unknown>, creating: boolean): MemberWrite {
  const out: MemberWrite = {};
  const uuid = body.user_uuid;
  if (uuid === undefined) {
    if (creating) throw errors.required('user_uuid');
  } else if (uuid === null) {
    throw errors.nullField('user_uuid');
  } else if (typeof uuid !== 'string' || !UUID.test(uuid)) {
    throw errors.invalidUuid('user_uuid');
  } else {
    out.userUuid = canonicalUuid(uuid);
  }
  const level = body.level;
  if (level === null) throw errors.nullField('level');
  if (level !== undefined) {
    // A choice field: 8 and "8" are the same choice.
    const n = typeof level === 'string' && /^\d+$/.test(level) ? Number(level) : level;
    if (typeof n !== 'number' || !LEVELS.includes(n)) throw errors.invalidChoice(level, 'level');
    out.level = n;
  }
  return out;
}

export interface MemberWriteContext {
  accessControl: boolean;
  requester: { id: number; uuid: string; level: number };
  write: MemberWrite;
  // The membership being changed, on update.
  target?: { userId: number; level: number };
}

export function validateMemberWrite(c: MemberWriteContext): void {
  if (!c.accessControl) throw errors.membersNeedAccessControl();
  if (c.write.userUuid === c.requester.uuid.toLowerCase()) throw errors.memberSelfAdd();
  if (c.write.level !== undefined && c.write.level > c.requester.level) throw errors.memberLevelAboveOwn();
  if (c.target) {
    if (c.target.userId !== c.requester.id) {
      if (c.target.level > c.requester.level) throw errors.memberEditAbove();
    } else if (c.write.level !== undefined) {
      throw errors.memberOwnLevel();
    }
  }
}
