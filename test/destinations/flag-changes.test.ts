// The activity a flag's row shows against what was seen of it (src/destinations/internal/flag-changes.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { flagActivity, seeFlags } from '../../src/destinations/internal/flag-changes.js';

const s = suite('internal destinations: flag changes');
const now = '2026-11-28T01:00:00.000Z';
const row = (over: Record<string, unknown> = {}) => ({
  id: 7, project_id: 1, key: 'beta', name: 'Beta', active: true, deleted: false, version: 1, filters: { groups: [{ rollout_percentage: 10 }] },
  created_by: 3, last_modified_by: 3, ...over,
});
const seen = (r: Record<string, unknown>) => seeFlags([r]).get('1/7');

s('created, updated with the fields changed, deleted, and nothing when nothing changed', () => {
  const created = flagActivity(row(), undefined, now)!;
  assert.equal([created.event, created.properties.activity, created.properties.item_id, (created.properties.detail as any).name, created.userId],
    ['$activity_log_entry_created', 'created', '7', 'beta', 3]);
  assert.is(flagActivity(row(), seen(row()), now), null);
  const updated = flagActivity(row({ version: 2, active: false, filters: { groups: [{ rollout_percentage: 50 }] }, last_modified_by: 4 }), seen(row()), now)!;
  assert.is(updated.properties.activity, 'updated');
  assert.is(updated.userId, 4);
  assert.equal((updated.properties.detail as any).changes.map((c: any) => [c.field, c.before, c.after]), [
    ['active', true, false], ['filters', { groups: [{ rollout_percentage: 10 }] }, { groups: [{ rollout_percentage: 50 }] }],
  ]);
  const deleted = flagActivity(row({ version: 3, deleted: true }), seen(row({ version: 2 })), now)!;
  assert.is(deleted.properties.activity, 'deleted');
  assert.is((deleted.properties.detail as any).changes, null);
});

s.run();
