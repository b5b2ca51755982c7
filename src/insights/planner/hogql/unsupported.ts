// What PostHog's HogQL has that hedgerow does not, refused by name: a 400 that says what is
// missing and why, where the compiler would otherwise answer "Unable to resolve field" or,
// worse, the parser would drop the words and the query would run as another one.

/** PostHog's fields that hedgerow's tables lack, by table: why each is not there. */
const MISSING_FIELDS: Record<string, Record<string, string>> = {
  groups: {
    updated_at: 'hedgerow keeps each group as its latest $groupidentify left it, not when that was',
  },
  events: {
    person_mode: 'hedgerow does not record how an event was processed for its person',
    $session_id_uuid: 'read $session_id, the session id as text',
  },
  sessions: {
    $channel_type: 'PostHog\'s channel classification is not computed; read $entry_referring_domain and the $entry_utm_* fields',
    $last_external_click_url: 'outbound clicks are not aggregated into sessions',
  },
};

/**
 * The refusal for a field PostHog's table has and hedgerow's lacks (`events.group_0.x` and
 * `events.session.x` read the groups and sessions tables); null for any other field.
 */
export function missingField(table: string | null, chain: readonly unknown[]): string | null {
  if (table === null) return null;
  let [owner, name] = [table, chain[0]];
  if (table === 'events' && chain.length === 2 && typeof chain[0] === 'string') {
    if (/^group_[0-4]$/.test(chain[0])) [owner, name] = ['groups', chain[1]];
    else if (chain[0] === 'session') [owner, name] = ['sessions', chain[1]];
  } else if (chain.length !== 1) {
    return null;
  }
  const why = typeof name === 'string' && Object.hasOwn(MISSING_FIELDS[owner] ?? {}, name) ? MISSING_FIELDS[owner][name] : undefined;
  return why === undefined ? null : `The field ${owner}.${String(name)} is not supported by hedgerow: ${why}`;
}

// WITH ROLLUP, WITH CUBE and WITH TOTALS after a GROUP BY: PostHog's parser accepts and drops
// them, so the query would run as a plain GROUP BY. They are found in the text, outside its
// strings, quoted names and comments (blanked in one pass: no pattern can backtrack over a
// megabyte of quotes).
const MODIFIER = /\bwith\s+(rollup|cube|totals)\b/gi;

function blankQuotedAndComments(source: string): string {
  const out = source.split('');
  let i = 0;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < out.length; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      // A backslash escapes the next character; a doubled quote is one quote.
      while (j < source.length && !(source[j] === c && source[j + 1] !== c)) j += source[j] === '\\' || source[j] === c ? 2 : 1;
      blank(i, j + 1);
      i = j + 1;
    } else if ((c === '-' && next === '-') || (c === '/' && next === '/')) {
      const end = source.indexOf('\n', i);
      const j = end === -1 ? source.length : end;
      blank(i, j);
      i = j;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const j = end === -1 ? source.length : end + 2;
      blank(i, j);
      i = j;
    } else {
      i++;
    }
  }
  return out.join('');
}

/** The first GROUP BY modifier the parser drops, with its offset in code points and its length; null without one. */
export function droppedGroupByModifier(source: string): { words: string; offset: number; length: number } | null {
  if (!/with\s+(?:rollup|cube|totals)/i.test(source)) return null;
  MODIFIER.lastIndex = 0;
  const found = MODIFIER.exec(blankQuotedAndComments(source));
  if (found === null) return null;
  return { words: `WITH ${found[1].toUpperCase()}`, offset: Array.from(source.slice(0, found.index)).length, length: found[0].length };
}
