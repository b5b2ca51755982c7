// The fast HogQL parser's public face (see ./select.ts).
export { fastParse, type FastParseKind } from './select.js';
