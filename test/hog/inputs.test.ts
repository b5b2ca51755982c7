// Input templates and a function's inputs: PostHog's template bytecode, nested values,
// validation per schema type, secrets, dependency order, and evaluation of the compiled
// inputs for an invocation.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileHashTemplate, compileTemplateInputs, evaluateInputs, MASKED_SECRET_VALUE } from '../../src/hog/index.js';
import type { Bytecode, InputSchemaItem, InputsResult } from '../../src/hog/index.js';
import { repoRoot } from './helpers.js';

const api = JSON.parse(readFileSync(join(repoRoot, 'test/hog/posthog/api.json'), 'utf8')) as {
  templates: [string, Bytecode][];
  masking: [string, Bytecode][];
};

const ok = (result: InputsResult) => {
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.inputs;
};
const errors = (result: InputsResult) => {
  assert.not.ok(result.ok, 'should not validate');
  return result.ok ? [] : result.errors;
};
const one = (type: string, value: unknown, extra: Partial<InputSchemaItem> = {}) =>
  compileTemplateInputs([{ key: 'k', type, ...extra }], { k: { value } });

const templates = suite('hog templates');

templates("PostHog's template bytecode (test_hog_function.py)", () => {
  for (const [text, expected] of api.templates) {
    assert.equal(ok(one('string', text)).k.bytecode, expected, text);
  }
});

templates("masking hash templates (PostHog's example)", () => {
  for (const [hash, expected] of api.masking) {
    const compiled = compileHashTemplate(hash);
    assert.ok(compiled.ok);
    if (compiled.ok) assert.equal(compiled.bytecode, expected);
  }
  const bad = compileHashTemplate('{person.properties[0]}');
  assert.ok(!bad.ok && bad.error.message === 'Array access starts from 1' && bad.error.column === 2);
});

templates('every string of nested objects and arrays is compiled; other values stay', () => {
  const input = ok(one('json', { event: '{event.event}', tags: ['static', '{person.id}'], count: 3, flag: true, none: null })).k;
  assert.equal(input.bytecode, {
    event: ['_H', 1, 32, 'event', 32, 'event', 1, 2],
    tags: [['_H', 1, 32, 'static'], ['_H', 1, 32, 'id', 32, 'person', 1, 2]],
    count: 3,
    flag: true,
    none: null,
  });
});

templates('template errors name the template: syntax, hyphens, liquid braces', () => {
  assert.equal(errors(one('string', 'x {1 +')), [{ key: 'k', message: "Invalid template: mismatched input '<EOF>' expecting {ALL, AND, ANTI, ANY, ARRAY, AS, ASCENDING, ASOF, BETWEEN, BOTH, BY, CASE, CAST, COHORT, COLLATE, COLUMNS, CROSS, CUBE, CURRENT, DATE, DAY, DESC, DESCENDING, DISTINCT, ELSE, END, EXCLUDE, EXTRACT, FINAL, FILL, FILTER, FIRST, FOLLOWING, FOR, FROM, FULL, GROUP, GROUPING, HAVING, HOUR, ID, IF, ILIKE, IGNORE, INCLUDE, IN, INF, INNER, INTERPOLATE, INTERVAL, IS, JOIN, KEY, LAMBDA, LAST, LEADING, LEFT, LIKE, LIMIT, MINUTE, MONTH, NAME, NATURAL, NAN_SQL, NOT, NULL_SQL, NULLS, OFFSET, ON, OR, ORDER, OUTER, OVER, PARTITION, PIVOT, POSITIONAL, PRECEDING, PREWHERE, QUALIFY, QUARTER, RANGE, RECURSIVE, REPLACE, RETURN, RIGHT, ROLLUP, ROW, ROWS, SAMPLE, SECOND, SELECT, SEMI, SETS, SETTINGS, STEP, SUBSTRING, THEN, TIES, TIMESTAMP, TIME, LOCAL, ZONE, TO, TOP, TOTALS, TRAILING, TRIM, TRUNCATE, TRY_CAST, UNBOUNDED, UNION, UNPIVOT, USING, VALUES, WEEK, WHEN, WHERE, WINDOW, WITH, YEAR, IDENTIFIER, QUOTED_IDENTIFIER, FLOATING_LITERAL, BINARY_LITERAL, OCTAL_LITERAL, DECIMAL_LITERAL, HEXADECIMAL_LITERAL, OCTAL_PREFIX_LITERAL, STRING_LITERAL, '*', '-', '.', '#', '{', '[', '(', '<', '+', 'f''}" }]);
  assert.equal(errors(one('string', '{event.properties.page-title}'))[0].message,
    "Invalid template: Hyphens are not supported in identifiers and are interpreted as subtraction. Use bracket notation: event.properties['page-title']");
  assert.ok(errors(one('string', 'Hi {{ person.name }}'))[0].message.startsWith(
    'Invalid template: this field uses single-curly templating like {person.properties.email}. Liquid-style {{ ... }} syntax is not supported here. ('));
});

templates('transformations may only read project, event and inputs', () => {
  const result = compileTemplateInputs([{ key: 'k', type: 'string' }], { k: { value: '{person.id} {event.event}' } },
    { functionType: 'transformation' });
  assert.equal(errors(result)[0].message,
    'Invalid template: Variable not available in transformations: person. Transformations only have access to project, event, and inputs.');
});

const validation = suite('hog inputs: validation');

validation('values must fit their schema type', () => {
  assert.equal(errors(one('string', 5))[0], { key: 'k', message: 'Value must be a string.' });
  assert.equal(errors(one('number', 'five'))[0].message, 'Value must be a number.');
  assert.equal(errors(one('boolean', 3))[0].message, 'Value must be a boolean or a template string.');
  assert.equal(errors(one('boolean', 'x', { templating: false }))[0].message, 'Value must be a boolean.');
  assert.equal(errors(one('dictionary', ['a']))[0].message, 'Value must be a dictionary.');
  assert.equal(errors(one('integration', 'x'))[0].message, 'Value must be an Integration ID.');
  assert.equal(errors(one('email', { to: 'a@b.c' }))[0].message, "Missing values for 'from', 'subject', either 'text' or 'html'.");
  assert.equal(errors(one('non_failure_status_codes', [404, '6xx']))[0].message, "Wildcards must be '4xx' or '5xx'.");
  assert.ok(one('non_failure_status_codes', [404, '5xx']).ok);
});

validation('required inputs need a value; a required input left out takes the schema default', () => {
  assert.equal(errors(compileTemplateInputs([{ key: 'url', type: 'string', required: true }], {})),
    [{ key: 'url', message: 'This field is required.' }]);
  assert.equal(errors(one('string', '', { required: true }))[0].message, 'This field is required.');
  const filled = ok(compileTemplateInputs([{ key: 'method', type: 'choice', required: true, default: 'POST' }], {}));
  assert.equal(filled, { method: { value: 'POST', order: 0 } });
});

validation('inputs outside the schema and inputs without a value are left out; falsy values are kept uncompiled', () => {
  const inputs = ok(compileTemplateInputs(
    [{ key: 'a', type: 'string' }, { key: 'b', type: 'boolean' }, { key: 'c', type: 'string' }],
    { a: { value: 'x' }, b: { value: false }, c: {}, stray: { value: 1 } },
  ));
  assert.equal(inputs, { a: { value: 'x', bytecode: ['_H', 1, 32, 'x'], order: 0 }, b: { value: false, order: 1 } });
});

validation('templating: schema false leaves values raw; liquid values are not compiled', () => {
  assert.equal(ok(one('string', '{event}', { templating: false })).k, { value: '{event}', order: 0 });
  assert.equal(ok(one('string', '{{ event }}', { templating: 'liquid' })).k, { value: '{{ event }}', templating: 'liquid', order: 0 });
  assert.equal(ok(one('string', '{event}', { templating: true })).k.templating, 'hog');
});

validation('every invalid input is reported, in schema order', () => {
  const result = compileTemplateInputs([{ key: 'a', type: 'string' }, { key: 'b', type: 'number' }], { a: { value: 1 }, b: { value: 'x' } });
  assert.equal(errors(result).map((e) => e.key), ['a', 'b']);
});

validation('secrets: the mask or nothing keeps the stored value; the mask without one is refused', () => {
  const schema: InputSchemaItem[] = [{ key: 'token', type: 'string', secret: true }];
  const stored = { token: { value: 's3cret', bytecode: ['_H', 1, 32, 's3cret'], order: 0 } };
  assert.equal(ok(compileTemplateInputs(schema, { token: { secret: true } }, { storedSecrets: stored })).token.value, 's3cret');
  assert.equal(ok(compileTemplateInputs(schema, {}, { storedSecrets: stored })).token.value, 's3cret');
  assert.equal(ok(compileTemplateInputs(schema, { token: { value: 'new' } }, { storedSecrets: stored })).token.value, 'new');
  assert.equal(errors(compileTemplateInputs(schema, { token: { secret: true } }))[0].message,
    'No value is saved for this secret input. Enter the value again.');
  assert.equal(errors(compileTemplateInputs(schema, { token: { value: MASKED_SECRET_VALUE } }))[0].message,
    'This secret input was not updated correctly. Enter the value again.');
});

const order = suite('hog inputs: dependency order');

order('an input comes after the inputs it reads; ties keep schema order', () => {
  const inputs = ok(compileTemplateInputs(
    [{ key: 'url', type: 'string' }, { key: 'body', type: 'json' }, { key: 'base', type: 'string' }, { key: 'token', type: 'string' }],
    {
      url: { value: '{inputs.base}/hook?t={inputs.token}' },
      body: { value: { auth: '{inputs.token}' } },
      base: { value: 'https://x.example' },
      token: { value: 't' },
    },
  ));
  assert.equal(Object.keys(inputs), ['base', 'token', 'url', 'body']);
  assert.equal(Object.values(inputs).map((i) => i.order), [0, 1, 2, 3]);
});

order('references to inputs that are not there do not order anything', () => {
  const inputs = ok(compileTemplateInputs([{ key: 'a', type: 'string' }], { a: { value: '{inputs.missing}' } }));
  assert.is(inputs.a.order, 0);
});

order('a cycle is refused', () => {
  const result = compileTemplateInputs(
    [{ key: 'a', type: 'string' }, { key: 'b', type: 'string' }, { key: 'c', type: 'string' }],
    { a: { value: '{inputs.b}' }, b: { value: '{inputs.a}' }, c: { value: 'free' } },
  );
  assert.equal(errors(result), [{ key: null, message: 'Circular dependency detected in input_deps.' }]);
  assert.equal(errors(compileTemplateInputs([{ key: 'a', type: 'string' }], { a: { value: 'x{inputs.a}' } })),
    [{ key: null, message: 'Circular dependency detected in input_deps.' }]);
});

const evaluation = suite('hog inputs: evaluation for an invocation');

evaluation('templates render in order, reading the event and the inputs before them', async () => {
  const inputs = ok(compileTemplateInputs(
    [{ key: 'url', type: 'string' }, { key: 'base', type: 'string' }, { key: 'body', type: 'json' }, { key: 'n', type: 'number' }],
    {
      url: { value: '{inputs.base}/e/{event.uuid}' },
      base: { value: 'https://x.example' },
      body: { value: { event: '{event.event}', person: '{person}', tags: ['{upper(event.event)}'], n: 1 } },
      n: { value: 5 },
    },
  ));
  const globals = { event: { uuid: 'u1', event: 'signup' }, person: { id: 'p1' } };
  const evaluated = await evaluateInputs(inputs, globals);
  assert.equal(evaluated, {
    ok: true,
    inputs: {
      base: 'https://x.example',
      url: 'https://x.example/e/u1',
      body: { event: 'signup', person: { id: 'p1' }, tags: ['SIGNUP'], n: 1 },
      n: 5,
    },
  });
});

evaluation('a template that fails names its input', async () => {
  const inputs = ok(compileTemplateInputs([{ key: 'x', type: 'string' }], { x: { value: '{missing.global}' } }));
  assert.equal(await evaluateInputs(inputs, {}), { ok: false, key: 'x', message: 'Could not execute bytecode for input field: x' });
});

for (const s of [templates, validation, order, evaluation]) s.run();
