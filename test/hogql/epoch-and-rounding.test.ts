// HogQL's epoch functions and ClickHouse's rounding variants, as the insights' hogql texts
// use them (conversion times in whole seconds, gaps in microseconds, time_to_convert's bins
// and average): run as HogQLQuery through the insights engine, over events with fractions
// of a second.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ev, run, storePerSuite, type TestStore } from '../insights/helpers.js';

const s = suite('hogql: epoch functions, cbrt and roundBankers');
let store: TestStore;
const at = { now: '2024-06-05T00:00:00Z' };

storePerSuite(s, async (opened) => {
  store = opened;
  await store.loader.load({ events: [
    ev(1, 'a', '2024-06-01T00:00:00.999Z'),
    ev(1, 'b', '2024-06-01T00:00:01.001Z'),
    ev(2, 'c', '2024-06-01T12:30:00.500Z'),
  ] });
});

const rows = async (query: string) => (await run(store, { kind: 'HogQLQuery', query }, at)).results as unknown[][];
const numbers = (xs: unknown[][]) => xs.map((r) => r.map(Number));

s('toUnixTimestamp drops the fraction (ClickHouse truncates); the Milli and Micro variants keep theirs', async () => {
  assert.equal(numbers(await rows('select toUnixTimestamp(timestamp), toUnixTimestamp64Milli(timestamp), toUnixTimestamp64Micro(timestamp) from events order by timestamp')), [
    [1717200000, 1717200000999, 1717200000999000],
    [1717200001, 1717200001001, 1717200001001000],
    [1717245000, 1717245000500, 1717245000500000],
  ]);
  // 2 ms apart, yet a second boundary between them: whole seconds apart 1, as dateDiff('second').
  assert.equal(numbers(await rows("select toUnixTimestamp(b.timestamp) - toUnixTimestamp(a.timestamp), toUnixTimestamp64Micro(b.timestamp) - toUnixTimestamp64Micro(a.timestamp) from events a join events b on b.event = 'b' where a.event = 'a'")), [[1, 2000]]);
});

s('cbrt is the cube root; roundBankers rounds ties to the even neighbour where round goes away from zero', async () => {
  assert.equal(numbers(await rows('select cbrt(8), cbrt(64), cbrt(1000)')), [[2, 4, 10]]);
  assert.equal(numbers(await rows('select roundBankers(2.5), roundBankers(3.5), roundBankers(-2.5), roundBankers(0.125, 2), roundBankers(0.375, 2), roundBankers(1.2345678, 3), round(2.5)')), [[2, 4, -2, 0.12, 0.38, 1.235, 3]]);
  // Over a column, as time_to_convert's average is rounded.
  assert.equal(numbers(await rows("select roundBankers(avg(toUnixTimestamp64Milli(timestamp) % 1000) / 400, 1), round(avg(toUnixTimestamp64Milli(timestamp) % 1000) / 400, 1) from events where event != 'c'")), [[1.2, 1.3]]);
});

s.run();
