// Window-only functions (aggregates work over windows too).
import { raw, sql, type Sql } from '../../sql.js';
import { expr, num, type Expr, type HType } from '../expr.js';
import { catalogue } from './catalogue.js';
import { call } from './helpers.js';

const { functions, define } = catalogue();
export { functions as windowFunctions };

const windowFn = (name: string, min: number, max: number, build: (args: Expr[]) => { sql: Sql; type: HType }) =>
  define('window', name, min, max, (args) => {
    const b = build(args);
    return expr(b.sql, b.type, args);
  });
windowFn('row_number', 0, 0, () => ({ sql: raw('row_number()'), type: 'UInt' }));
windowFn('rank', 0, 0, () => ({ sql: raw('rank()'), type: 'UInt' }));
windowFn('dense_rank', 0, 0, () => ({ sql: raw('dense_rank()'), type: 'UInt' }));
windowFn('percent_rank', 0, 0, () => ({ sql: raw('percent_rank()'), type: 'Float' }));
windowFn('cume_dist', 0, 0, () => ({ sql: raw('cume_dist()'), type: 'Float' }));
windowFn('ntile', 1, 1, ([n]) => ({ sql: sql`ntile(${num(n)})`, type: 'UInt' }));
for (const [names, duck] of [[['lag', 'lagInFrame'], 'lag'], [['lead', 'leadInFrame'], 'lead']] as const) {
  for (const name of names) windowFn(name, 1, 3, (args) => ({ sql: call(duck, args.map((a) => a.sql)), type: args[0].type }));
}
windowFn('first_value', 1, 1, ([x]) => ({ sql: sql`first_value(${x.sql})`, type: x.type }));
windowFn('last_value', 1, 1, ([x]) => ({ sql: sql`last_value(${x.sql})`, type: x.type }));
windowFn('nth_value', 2, 2, ([x, n]) => ({ sql: sql`nth_value(${x.sql}, ${num(n)})`, type: x.type }));
