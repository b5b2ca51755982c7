// Inputs whose templating is "liquid": rendered with LiquidJS and the invocation's globals
// (strings at any depth), output HTML-escaped as PostHog's are, editor entities inside tags
// decoded, no file read for a partial, and runaway templates stopped by their bounds.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileTemplateInputs, evaluateInputs, initHog, type InputSchemaItem } from '../../src/hog/index.js';
import { runTemplate, templateEvent } from '../helpers/run-template.js';

const s = suite('liquid inputs');
s.before(() => initHog());

const globals = {
  event: { event: '$pageview', uuid: 'u-1', properties: { $current_url: 'https://example.com/a?b=1&c=2', plan: 'pro' } },
  person: { id: 'p-1', name: 'Ada', properties: { email: 'ada@example.com', tags: ['x', 'y'] } },
  groups: { company: { id: 'acme', properties: { name: 'Acme' } } },
  project: { id: 1, name: 'Default', url: 'http://localhost:8000/project/1' },
  source: { name: 'fn', url: 'http://localhost:8000/project/1/functions/f/configuration/' },
};

async function evaluate(schema: InputSchemaItem[], inputs: Record<string, unknown>) {
  const compiled = compileTemplateInputs(schema, inputs);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.errors));
  return evaluateInputs(compiled.inputs, globals);
}

s('strings at any depth render with event, person, groups, project, source and earlier inputs', async () => {
  const result = await evaluate([
    { key: 'name', type: 'string' },
    { key: 'body', type: 'json' },
  ], {
    name: { value: '{{ person.name | upcase }}', templating: 'liquid' },
    body: {
      value: {
        text: '{{ event.event }} by {{ person.properties.email }} of {{ groups.company.properties.name }}',
        list: ['{{ person.properties.tags | join: "," }}', 3, true],
        where: '{{ project.name }} / {{ source.name }}',
        missing: '{{ event.properties.nope | default: "none" }}',
        year: '{{ now | date: "%Y" }}',
      },
      templating: 'liquid',
    },
  });
  assert.equal(result, {
    ok: true,
    inputs: {
      name: 'ADA',
      body: {
        text: '$pageview by ada@example.com of Acme', list: ['x,y', 3, true], where: 'Default / fn', missing: 'none',
        year: String(new Date().getFullYear()),
      },
    },
  });
});

s('an input reads inputs rendered before it; Hog inputs beside Liquid ones keep working', async () => {
  const result = await evaluate([{ key: 'a', type: 'string' }, { key: 'b', type: 'string' }], {
    a: { value: '{event.event}' },
    b: { value: 'then {{ inputs.a }}', templating: 'liquid' },
  });
  assert.equal(result, { ok: true, inputs: { a: '$pageview', b: 'then $pageview' } });
});

s('output is HTML-escaped and editor entities inside tags are decoded, as PostHog renders', async () => {
  const result = await evaluate([{ key: 'k', type: 'string' }], {
    k: { value: '<b>{{ event.properties["$current_url"] }}</b>{% if 2 &gt; 1 %} yes{% endif %}', templating: 'liquid' },
  });
  assert.equal(result, { ok: true, inputs: { k: '<b>https://example.com/a?b=1&amp;c=2</b> yes' } });
});

s('a broken template, a partial from the file system and a runaway loop fail the input, saying why', async () => {
  const broken = await evaluate([{ key: 'k', type: 'string' }], { k: { value: '{{ event.event ', templating: 'liquid' } });
  assert.equal(broken.ok, false);
  assert.match(!broken.ok ? broken.message : '', /^Could not render liquid template for input field: k: /);
  const file = await evaluate([{ key: 'k', type: 'string' }], { k: { value: '{% include "/etc/passwd" %}', templating: 'liquid' } });
  assert.equal(file.ok, false);
  assert.match(!file.ok ? file.message : '', /Failed to lookup/);
  const runaway = await evaluate([{ key: 'k', type: 'string' }], { k: { value: '{% for i in (1..100000000) %}{{ i }}{% endfor %}', templating: 'liquid' } });
  assert.equal(runaway.ok, false);
  assert.match(!runaway.ok ? runaway.message : '', /limit exceeded/);
});

s('a function\'s Liquid inputs reach its request (the webhook template through the Hog workers\' steps)', async () => {
  const sent: string[] = [];
  const run = await runTemplate({
    template_id: 'template-webhook',
    inputs: {
      url: { value: 'https://hooks.example.com/{{ event.event | remove: "$" }}', templating: 'liquid' },
      body: { value: { text: '{{ person.properties.email }} viewed {{ event.properties["$current_url"] }}' }, templating: 'liquid' },
    },
  }, templateEvent({}, { id: 'p-1', properties: { email: 'ada@example.com' } }), (r) => { sent.push(`${r.url} ${r.body}`); return { status: 200, body: {} }; });
  assert.is(run.skipped, null);
  assert.is(run.invocations[0].error, null);
  assert.equal(sent, ['https://hooks.example.com/pageview {"text":"ada@example.com viewed https://example.com/pricing"}']);
});

s.run();
