import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isIllegalDistinctId } from '../../src/persons/illegal-ids.js';

const s = suite('illegal distinct ids');

s('placeholder ids are illegal in any case, bare or quoted', () => {
  for (const id of ['anonymous', 'guest', 'distinctid', 'distinct_id', 'id', 'not_authenticated', 'email', 'undefined', 'true', 'false']) {
    for (const variant of [id, id.toUpperCase(), `'${id}'`, `"${id}"`, `"${id.toUpperCase()}"`]) {
      assert.ok(isIllegalDistinctId(variant), variant);
    }
  }
});

s('some ids are illegal only exactly as written', () => {
  for (const id of ['[object Object]', 'NaN', 'None', 'none', 'null', '0', `'null'`, `"NaN"`]) assert.ok(isIllegalDistinctId(id), id);
  for (const id of ['nan', 'NULL', 'NONE', '[OBJECT OBJECT]']) assert.not.ok(isIllegalDistinctId(id), id);
});

s('empty and blank ids are illegal', () => {
  assert.ok(isIllegalDistinctId(''));
  assert.ok(isIllegalDistinctId('   '));
});

s('ordinary ids are legal', () => {
  for (const id of ['user-1', 'alice@example.com', '00', 'ID-7', 'guest42', '01890f4e-0000-7000-8000-000000000001']) {
    assert.not.ok(isIllegalDistinctId(id), id);
  }
});

s.run();
