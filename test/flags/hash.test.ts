// The sha1_60_v1 bucketing arithmetic, pinned by PostHog's hash vectors, and the JS SHA-1
// checked against node:crypto on inputs of every block-boundary length and encoding.

import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hash01 } from '../../src/flags/index.js';
import { sha1First60Bits } from '../../src/flags/hash.js';
import { compileFlags, evaluateFlags } from '../../src/flags/index.js';
import { NOW, readConformance } from './conformance.js';

interface Vector {
  id: string;
  prefix: string;
  identifier: string;
  salt: string;
  input: string;
  n: string;
  hash01: number;
  identifier_before_truncation?: string;
  rollout_checks?: { rollout_percentage: number; threshold: number; included: boolean }[];
  holdout_checks?: { exclusion_percentage: number; threshold: number; member: boolean }[];
  variant_check?: { variants: { key: string; rollout_percentage: number }[]; selected: string | null };
}

interface VariantVector {
  id: string;
  hash01: number;
  variants: { key: string; rollout_percentage: number }[];
  cumulative_boundaries: number[];
  selected: string | null;
}

interface Corpus {
  vectors: Vector[];
  threshold_vectors: { id: string; hash01: number; rollout_percentage: number; threshold: number; included: boolean }[];
  variant_vectors: VariantVector[];
  seed_parity: { id: string; flag_key: string; identifier: string | null; salt: string; v1_input?: string; hash01: number }[];
}

const corpus = readConformance<Corpus>('flag-rules-v2/corpus/hash_sha1_60_v1.json');
const s = suite('sha1_60_v1 hashing');

for (const v of corpus.vectors) {
  s(`${v.id}: hash01 and the 60-bit integer`, () => {
    const identifier = v.identifier_before_truncation ?? v.identifier;
    assert.is(hash01(v.prefix, identifier, v.salt), v.hash01);
    assert.is(sha1First60Bits(v.input), Number(BigInt(v.n)));
  });
  if (v.rollout_checks || v.holdout_checks) {
    s(`${v.id}: inclusion is hash01 <= percentage / 100`, () => {
      for (const c of v.rollout_checks ?? []) assert.is(v.hash01 <= c.rollout_percentage / 100 || c.rollout_percentage === 100, c.included);
      for (const c of v.holdout_checks ?? []) assert.is(v.hash01 <= c.exclusion_percentage / 100, c.member);
    });
  }
}

// A flag whose single condition is a pure rollout at `pct` percent.
function rolloutFlag(key: string, pct: number) {
  return { id: 1, key, active: true, filters: { groups: [{ properties: [], rollout_percentage: pct }] } };
}

s('rollout vectors decide real evaluations', () => {
  for (const v of corpus.vectors) {
    if (!v.rollout_checks || !v.prefix.endsWith('.')) continue;
    const key = v.prefix.slice(0, -1);
    for (const c of v.rollout_checks) {
      const compiled = compileFlags({ flags: [rolloutFlag(key, c.rollout_percentage)] });
      const [f] = evaluateFlags(compiled, { distinct_id: v.identifier_before_truncation ?? v.identifier, now: NOW }).flags;
      assert.is(f.enabled, c.included, `${v.id} at ${c.rollout_percentage}%`);
    }
  }
});

s('the variant vector picks its variant in a real evaluation', () => {
  const v = corpus.vectors.find((x) => x.variant_check)!;
  const key = v.prefix.slice(0, -1);
  const compiled = compileFlags({
    flags: [{ id: 1, key, active: true, filters: { groups: [{ properties: [] }], multivariate: { variants: v.variant_check!.variants } } }],
  });
  const [f] = evaluateFlags(compiled, { distinct_id: v.identifier, now: NOW }).flags;
  assert.is(f.variant, v.variant_check!.selected);
});

for (const t of corpus.threshold_vectors) {
  s(`${t.id}`, () => {
    assert.is(t.rollout_percentage / 100, t.threshold);
    assert.is(t.hash01 <= t.threshold, t.included);
  });
}

// The accumulation evaluate.ts uses (compile.ts), checked against the recorded boundaries.
for (const v of corpus.variant_vectors) {
  s(`${v.id}`, () => {
    let cumulative = 0;
    const boundaries = v.variants.map((x) => (cumulative += x.rollout_percentage / 100));
    assert.equal(boundaries, v.cumulative_boundaries);
    const i = boundaries.findIndex((b) => v.hash01 < b);
    assert.is(i === -1 ? null : v.variants[i].key, v.selected);
  });
}

for (const p of corpus.seed_parity) {
  if (p.identifier === null || p.v1_input === undefined) continue;
  s(`${p.id}`, () => {
    const prefix = p.v1_input!.startsWith('holdout-') ? 'holdout-' : `${p.flag_key}.`;
    assert.is(hash01(prefix, p.identifier!, p.salt), p.hash01);
  });
}

s('SHA-1 agrees with node:crypto across block boundaries and encodings', () => {
  const samples = ['', 'a', 'é', '😀', '\u0000', 'x'.repeat(500)];
  for (let n = 50; n <= 130; n++) samples.push('k'.repeat(n), 'é'.repeat(n >> 1) + 'z');
  for (let i = 0; i < 200; i++) samples.push(`flag-${i}.user-${i * 7919}variant`, `holdout-${'ü'.repeat(i % 40)}${i}`);
  for (const text of samples) {
    const hex = createHash('sha1').update(text, 'utf8').digest('hex');
    assert.is(sha1First60Bits(text), parseInt(hex.slice(0, 15), 16), JSON.stringify(text));
  }
});

s('identifiers are cut to 200 code points, not UTF-16 units', () => {
  const astral = '😀'.repeat(250);
  assert.is(hash01('k.', astral, ''), hash01('k.', '😀'.repeat(200), ''));
  assert.is.not(hash01('k.', '😀'.repeat(199), ''), hash01('k.', '😀'.repeat(200), ''));
});

s.run();
