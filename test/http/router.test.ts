// The route table: exact paths, `:param` segments (decoded), optional trailing slashes,
// 405 rather than 404 for a known path, and no match for a parameter longer than any id.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createRouter, MAX_PARAM_LENGTH } from '../../src/http/router.js';
import type { Route } from '../../src/http/types.js';

const handler = () => ({ status: 200, body: null });
const route = (methods: Route['methods'], pattern: string): Route => ({ methods, pattern, bodyLimit: 1024, handler });
const flag = route(['GET'], '/api/projects/:project_id/feature_flags/:id');
const router = createRouter([route(['GET'], '/_liveness'), flag]);

const s = suite('router');

s('exact paths and patterns match with or without a trailing slash; parameters are decoded', () => {
  assert.ok(router.match('GET', '/_liveness/').route);
  const m = router.match('GET', '/api/projects/%40current/feature_flags/12/');
  assert.is(m.route, flag);
  assert.equal(m.params, { project_id: '@current', id: '12' });
});

s('a known path with another method is marked as existing (405), an unknown one not (404)', () => {
  assert.equal(router.match('POST', '/api/projects/1/feature_flags/12').pathExists, true);
  assert.equal(router.match('GET', '/api/projects/1/nothing/12').pathExists, false);
});

s(`a parameter of more than ${MAX_PARAM_LENGTH} characters (once decoded) matches no route: 404`, () => {
  assert.is(router.match('GET', `/api/projects/1/feature_flags/${'i'.repeat(MAX_PARAM_LENGTH)}`).route, flag);
  const long = router.match('GET', `/api/projects/1/feature_flags/${'i'.repeat(MAX_PARAM_LENGTH + 1)}`);
  assert.is(long.route, null);
  assert.is(long.pathExists, false);
  // Measured decoded: 200 escaped characters are 200 characters.
  assert.is(router.match('GET', `/api/projects/1/feature_flags/${'%C3%A9'.repeat(MAX_PARAM_LENGTH)}`).route, flag);
  assert.is(router.match('GET', `/api/projects/${'1'.repeat(10_000)}/feature_flags/1`).route, null);
});

s.run();
