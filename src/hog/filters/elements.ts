// Element filters over the autocapture chain the filter globals carry (elements_chain and
// the href/text/id/element lists derived from it).

import type { Expr } from '../ast.js';
import { compare, constant, field } from '../ast.js';
import { FilterError } from './context.js';

/** The tag appears in the chain: `(^|;)tag(\.|$|;|:)`. */
export function tagNameExpr(tagName: string): Expr {
  return compare('=~', field('elements_chain'), constant(`(^|;)${tagName}(\\.|$|;|:)`));
}

export function selectorExpr(selector: string): Expr {
  throw new FilterError(`CSS selector filters are not supported in real-time filters (selector: ${selector})`);
}
