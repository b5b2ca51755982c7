// Each consumer's thread, as the server runs it, is named after the consumer (top -H, ps -L)
// and runs below capture's CPU priority (nice 0): the event store at the default nice, the
// destinations, whose work can wait longest, lower still (ConsumerDefinition.nice).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { DEFAULT_CONSUMER_NICE } from '../../src/log/consumers/types.js';
import { eventually, NO_INSIGHTS, startTestServer } from '../helpers/server.js';

const s = suite('log consumers: thread priority');

// This process's threads: name → nice value (field 19 of /proc/…/stat, after the name's parentheses).
function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, Number(fields[16]));
    } catch { /* a thread that ended while listed */ }
  }
  return out;
}

s('the event store runs at the default nice (10), the destinations at 15', async () => {
  const t = await startTestServer({ consumers: NO_INSIGHTS });
  try {
    const seen = await eventually(async () => {
      const now = threads();
      return now.has('event_store') && now.has('destinations') ? now : null;
    });
    assert.is(DEFAULT_CONSUMER_NICE, 10);
    assert.is(seen.get('event_store'), DEFAULT_CONSUMER_NICE);
    assert.is(seen.get('destinations'), 15);
  } finally {
    await t.close();
  }
});

s.run();
