// The explicit-member rules without HTTP, including the two that PostHog's admin-only
// management makes unreachable over the API (levels stop at admin): raising a level
// above one's own, and editing a member above oneself.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../../src/errors.js';
import { parseMemberWrite, validateMemberWrite, type MemberWriteContext } from '../../../src/access/members/rules.js';
import { effectiveLevel } from '../../../src/access/members/access.js';
import type { Project, User } from '../../../src/access/tenancy/types.js';

const s = suite('explicit member rules');

function refusal(run: () => void): { status: number; detail: string } {
  try {
    run();
  } catch (err) {
    assert.instance(err, ApiError);
    return { status: (err as ApiError).status, detail: (err as ApiError).body.detail };
  }
  throw new Error('expected a refusal');
}

const requester = { id: 1, uuid: '6f1c1c9e-0000-4000-8000-000000000001', level: 8 };
const ctx = (over: Partial<MemberWriteContext>): MemberWriteContext => ({ accessControl: true, requester, write: {}, ...over });

s('access control off comes first', () => {
  assert.equal(refusal(() => validateMemberWrite(ctx({ accessControl: false, write: { userUuid: requester.uuid } }))),
    { status: 400, detail: 'Explicit members can only be accessed for projects with project-based permissioning enabled.' });
});

s('self-add, whatever the case of the uuid', () => {
  const write = parseMemberWrite({ user_uuid: requester.uuid.toUpperCase() }, true);
  assert.equal(refusal(() => validateMemberWrite(ctx({ write }))), { status: 403, detail: "You can't explicitly add yourself to projects." });
});

s('raising a level above one\'s own', () => {
  const low = { ...requester, level: 1 };
  assert.equal(refusal(() => validateMemberWrite(ctx({ requester: low, write: { level: 8 } }))),
    { status: 403, detail: 'You can only set access level to lower or equal to your current one.' });
  validateMemberWrite(ctx({ requester: low, write: { level: 1 } }));
});

s('editing someone above oneself; editing one\'s own level', () => {
  const low = { ...requester, level: 1 };
  assert.equal(refusal(() => validateMemberWrite(ctx({ requester: low, write: {}, target: { userId: 2, level: 8 } }))),
    { status: 403, detail: 'You can only edit others with level lower or equal to you.' });
  validateMemberWrite(ctx({ write: { level: 1 }, target: { userId: 2, level: 8 } }));
  assert.equal(refusal(() => validateMemberWrite(ctx({ write: { level: 1 }, target: { userId: 1, level: 8 } }))),
    { status: 403, detail: "You can't set your own access level." });
  // Touching one's own membership without a level is allowed.
  validateMemberWrite(ctx({ write: {}, target: { userId: 1, level: 8 } }));
});

s('fields: user_uuid required on create only; level is 1 or 8', () => {
  assert.equal(refusal(() => parseMemberWrite({}, true)), { status: 400, detail: 'This field is required.' });
  assert.equal(parseMemberWrite({}, false), {});
  assert.equal(parseMemberWrite({ user_uuid: '6F1C1C9E00004000800000000000000A', level: 8 }, true),
    { userUuid: '6f1c1c9e-0000-4000-8000-00000000000a', level: 8 });
  assert.equal(refusal(() => parseMemberWrite({ level: null }, false)), { status: 400, detail: 'This field may not be null.' });
  assert.equal(refusal(() => parseMemberWrite({ level: 'admin' }, false)), { status: 400, detail: '"admin" is not a valid choice.' });
  assert.equal(refusal(() => parseMemberWrite({ user_uuid: 7 }, true)), { status: 400, detail: 'Must be a valid UUID.' });
});

s('effective level: organization level without access control, max with an explicit membership, admins implicit', () => {
  const project = { organization_id: 'o', access_control: true } as Project;
  const user = (level: number, org = 'o') => ({ organization_id: org, organization_level: level }) as User;
  assert.is(effectiveLevel({ ...project, access_control: false }, user(1), undefined), 1);
  assert.is(effectiveLevel(project, user(1), undefined), null);
  assert.is(effectiveLevel(project, user(1), 1), 1);
  assert.is(effectiveLevel(project, user(1), 8), 8);
  assert.is(effectiveLevel(project, user(8), 1), 8);
  assert.is(effectiveLevel(project, user(8), undefined), 8);
  assert.is(effectiveLevel(project, user(15), undefined), 15);
  assert.is(effectiveLevel(project, user(15, 'other'), 8), null);
});

s.run();
