// Errors of the Hog domain: a program that does not parse or compile, and an input
// or filter that does not validate. Each carries where in the source it happened.

/** A place in Hog source: line and column count from 1, offset is in characters from 0. */
export interface SourceLocation {
  line: number;
  column: number;
  offset: number;
}

export class HogCompileError extends Error {
  /** Null when the failing node was made by the compiler, not read from source. */
  location: SourceLocation | null;

  constructor(message: string, location: SourceLocation | null = null) {
    super(message);
    this.name = 'HogCompileError';
    this.location = location;
  }
}

/** The location of a character offset (in code points, as the parser counts) in `source`. */
export function locate(source: string, offset: number): SourceLocation {
  let line = 1;
  let column = 1;
  let seen = 0;
  for (const ch of source) {
    if (seen === offset) break;
    seen++;
    if (ch === '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return { line, column, offset };
}
