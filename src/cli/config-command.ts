// `hedgerow config`: every setting's effective value and where it came from (default,
// environment, flag), as this command line and environment give them. A secret's value
// is never printed.
import { describeSettings, type Described, type Source } from '../setting.js';
import { SETTINGS, type Config } from '../settings.js';

const from = (d: Described) => (d.source === 'flag' ? `flag ${d.flag!}` : d.source === 'env' ? `env ${d.env}` : 'default');
const shown = (value: unknown) => (value === null ? '(none)' : value === '' ? '(empty)' : String(value));

export function configReport(config: Readonly<Config>, sources: ReadonlyMap<string, Source>): string {
  const rows = describeSettings(SETTINGS, { values: config, sources });
  if (config.json) return JSON.stringify(rows.map((d) => ({ ...d, flag: d.flag ?? undefined })));
  const width = (f: (d: Described) => string) => Math.max(...rows.map((d) => f(d).length));
  const name = (d: Described) => d.env + (d.flag ? ` (${d.flag})` : '');
  const [nameWidth, valueWidth] = [width(name), width((d) => shown(d.value))];
  return rows.map((d) => `${name(d).padEnd(nameWidth)}  ${shown(d.value).padEnd(valueWidth)}  ${from(d)}`).join('\n');
}
