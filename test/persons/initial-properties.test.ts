import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { liftPersonProperties } from '../../src/persons/initial-properties.js';

const s = suite('initial and campaign person properties');

s('device, page and campaign keys are set as latest and as $initial_ first touch', () => {
  const p = liftPersonProperties({ $browser: 'Firefox', $current_url: 'https://a/', utm_source: 'news', other: 1 });
  assert.equal(p.$set, { $browser: 'Firefox', $current_url: 'https://a/', utm_source: 'news' });
  assert.equal(p.$set_once, { $initial_browser: 'Firefox', $initial_current_url: 'https://a/', $initial_utm_source: 'news' });
  assert.is(p.other, 1);
});

s('explicit $set and $set_once win over lifted values', () => {
  const p = liftPersonProperties({ $browser: 'Firefox', $set: { $browser: 'Chrome' }, $set_once: { $initial_browser: 'Safari' } });
  assert.equal(p.$set, { $browser: 'Chrome' });
  assert.equal(p.$set_once, { $initial_browser: 'Safari' });
});

s('a null value is set as latest but never as first touch', () => {
  const p = liftPersonProperties({ gclid: null });
  assert.equal(p.$set, { gclid: null });
  assert.equal(p.$set_once, {});
});

s('server SDK events do not lift the host $os', () => {
  const p = liftPersonProperties({ $is_server: true, $os: 'Linux', $os_version: '6', $browser: 'x' });
  assert.equal(p.$set, { $browser: 'x' });
  assert.equal(p.$set_once, { $initial_browser: 'x' });
});

s('$os_name stands in for $os as first touch and is not kept itself', () => {
  const p = liftPersonProperties({ $os_name: 'iOS' });
  assert.equal(p.$set, {});
  assert.equal(p.$set_once, { $initial_os: 'iOS' });
});

s('an explicit $set.$os_name or $set_once.$initial_os_name is kept beside the $os_name stand-in', () => {
  const set = liftPersonProperties({ $os_name: 'iOS', $set: { $os_name: 'custom', k: 1 } });
  assert.equal(set.$set, { $os_name: 'custom', k: 1 });
  assert.equal(set.$set_once, { $initial_os: 'iOS' });
  const setOnce = liftPersonProperties({ $os_name: 'iOS', $set_once: { $initial_os_name: 'first' } });
  assert.equal(setOnce.$set, {});
  assert.equal(setOnce.$set_once, { $initial_os_name: 'first', $initial_os: 'iOS' });
});

s('$os is the first touch over $os_name, whichever comes first', () => {
  const p = liftPersonProperties({ $os_name: 'iOS', $os: 'Mac OS X' });
  assert.equal(p.$set, { $os: 'Mac OS X' });
  assert.equal(p.$set_once, { $initial_os: 'Mac OS X' });
});

s('events without such keys come back unchanged', () => {
  const props = { plan: 'pro', $set: { a: 1 } };
  assert.is(liftPersonProperties(props), props);
});

s.run();
