// Inputs whose templating is "liquid" (PostHog renders them with LiquidJS instead of
// compiling them to Hog): every string in the value, at any depth, is a Liquid template
// rendered with the invocation's globals (event, person, groups, project, source, the
// inputs evaluated so far) and `now`, as PostHog's CDP renders them: output HTML-escaped,
// entities an email editor wrote inside {{ }} and {% %} decoded first, partials only from
// an empty in-memory map (no file is ever read). Bounded as a backstop against runaway
// templates: the template's length, the allocations of one render (LiquidJS counts
// strings, arrays and loops) and its time.
import type { Liquid } from 'liquidjs';

export const LIQUID_MAX_TEMPLATE_CHARS = 100_000;
// LiquidJS's memory units (characters and elements allocated); a typical page is thousands.
export const LIQUID_MEMORY_LIMIT = 10_000_000;
// As the Hog input templates' 5 s: a wall-clock bound for runaway code, not for a paused thread.
export const LIQUID_RENDER_LIMIT_MS = 5_000;

let engine: Liquid | null = null;

// LiquidJS is loaded on the first Liquid input a thread renders: most never render one.
async function liquid(): Promise<Liquid> {
  if (engine === null) {
    const { Liquid: Engine } = await import('liquidjs');
    engine = new Engine({
      templates: {},
      outputEscape: 'escape',
      parseLimit: LIQUID_MAX_TEMPLATE_CHARS,
      memoryLimit: LIQUID_MEMORY_LIMIT,
      renderLimit: LIQUID_RENDER_LIMIT_MS,
    });
  }
  return engine;
}

const TAG = /\{\{[\s\S]*?\}\}|\{%[\s\S]*?%\}/g;
const ENTITIES: [RegExp, string][] = [[/&lt;/g, '<'], [/&gt;/g, '>'], [/&quot;/g, '"'], [/&#x27;/g, "'"], [/&amp;/g, '&']];

// An editor's HTML entities inside tags (`{% if a &gt; 1 %}`) back to the characters; &amp; last.
function decodeTags(template: string): string {
  return template.replace(TAG, (tag) => ENTITIES.reduce((text, [entity, char]) => text.replace(entity, char), tag));
}

async function renderValue(value: unknown, context: Record<string, unknown>, engine_: Liquid): Promise<unknown> {
  if (typeof value === 'string') return engine_.parseAndRender(decodeTags(value), context);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) out.push(await renderValue(item, context, engine_));
    return out;
  }
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = await renderValue(item, context, engine_);
    return out;
  }
  return value;
}

/** `value` with each string rendered as Liquid with `globals`; throws the template's error. */
export async function renderLiquid(value: unknown, globals: Record<string, unknown>): Promise<unknown> {
  if (value === null || value === undefined) return value;
  return renderValue(value, { ...globals, now: new Date() }, await liquid());
}
