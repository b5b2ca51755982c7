// The hostile requests of issue 27's capture attacker, in phases, for bench/hostile-neighbours
// (beside bystanders) and bench/burst-memory (what the large bodies leave held). `large`
// marks the phases of large bodies accepted and refused (no bombs).
import { gzipSync } from 'node:zlib';
import { emptyObjects, lz64Bomb } from '../test/helpers/hostile-bodies.js';

export interface Hostile { path: string; body: Buffer | string; headers: Record<string, string> }
export interface HostilePhase { name: string; requests: Hostile[]; concurrency: number; large: boolean }

const MB = 1024 * 1024;
const lz = { 'Content-Type': 'text/plain' };
const gz = { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' };
const plain = { 'Content-Type': 'application/json' };

export function hostilePhases(token: string, projectId: number, personalKey: string): HostilePhase[] {
  const far = (i: number) => ({ path: '/i/v0/e/?_=99999999999999999999', body: JSON.stringify({ api_key: token, event: 'far sent_at', distinct_id: `far-${i}` }), headers: plain });
  const events = (n: number, size: number) => JSON.stringify({ api_key: token, batch: Array.from({ length: n }, (_, i) => ({
    event: 'large', distinct_id: `large-${i % 50}`, properties: { $browser: ['Chrome', 'Firefox', 'Safari'][i % 3], blob: 'x'.repeat(size) },
  })) });
  const management = { ...plain, Authorization: `Bearer ${personalKey}` };
  const wide = JSON.stringify({ api_key: token, event: 'wide', distinct_id: 'wide', properties: Object.fromEntries(Array.from({ length: 65_536 }, (_, i) => [`k${i}`, i])) });
  const deep = `{"api_key":"${token}","event":"deep","distinct_id":"deep","properties":{"deep":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
  return [
    { name: 'bombs with far _ beside', concurrency: 6, large: false, requests: [
      { path: '/batch/?compression=lz64', body: lz64Bomb(30_000), headers: lz },
      { path: '/i/v0/e/?compression=lz64', body: lz64Bomb(31_000), headers: lz },
      far(0),
      { path: '/batch/', body: gzipSync(emptyObjects(16 * MB), { level: 9 }), headers: gz },
      { path: '/batch/', body: gzipSync(emptyObjects(70 * MB), { level: 9 }), headers: gz },
      far(1),
      { path: '/batch/', body: emptyObjects(20 * MB - 1), headers: plain },
      { path: '/batch/?compression=lz64', body: lz64Bomb(30_000), headers: lz },
      far(2),
    ] },
    { name: 'twelve bombs at once', concurrency: 12, large: false, requests: [
      ...Array.from({ length: 4 }, (_, i) => ({ path: '/batch/?compression=lz64', body: lz64Bomb(30_000 + i), headers: lz })),
      ...Array.from({ length: 4 }, () => ({ path: '/batch/', body: gzipSync(emptyObjects(70 * MB), { level: 1 }), headers: gz })),
      ...Array.from({ length: 4 }, () => ({ path: '/batch/', body: emptyObjects(20 * MB - 1), headers: plain })),
      far(4), far(5),
    ] },
    { name: 'large bodies: 19 MiB batches accepted, 20 MiB and 10 MiB refused', concurrency: 4, large: true, requests: [
      ...Array.from({ length: 4 }, () => ({ path: '/batch/', body: events(1900, 10_000), headers: plain })),
      ...Array.from({ length: 4 }, () => ({ path: '/batch/', body: Buffer.alloc(20 * MB, 0x20), headers: plain })),
      ...Array.from({ length: 4 }, () => ({ path: `/api/projects/${projectId}/feature_flags/`, body: Buffer.alloc(10 * MB + 1, 0x20), headers: management })),
    ] },
    { name: 'an event of 17 MiB, wide and deep events', concurrency: 2, large: true, requests: [
      { path: '/batch/', body: events(1, 17 * MB), headers: plain },
      { path: '/i/v0/e/', body: wide, headers: plain },
      { path: '/i/v0/e/', body: deep, headers: plain },
      far(3),
    ] },
  ];
}
