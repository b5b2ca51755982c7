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

// PostHog's functions that hedgerow does not compile, by name: why, and what to use instead.
const HASHES = 'ClickHouse\'s non-cryptographic hashes are not reproduced by hedgerow (its values would differ from PostHog\'s); MD5, SHA1 and SHA256 are, e.g. hex(MD5(x))';
const FUNNEL_AGGREGATES = 'ClickHouse\'s funnel and retention aggregates are not available on the columnar store (nor in PostHog\'s own DuckDB dialect); a FunnelsQuery or RetentionQuery answers the same question';
const STATES = 'aggregate states come from PostHog\'s pre-aggregated tables, which hedgerow does not keep; use the plain aggregate';
const MAPS = 'hedgerow has no Map type (properties are JSON); read keys with JSONExtract* or properties.x';
const BITMAPS = 'ClickHouse\'s roaring bitmaps have no counterpart on the columnar store; use groupUniqArray and the array functions';
const WIDTH = 'ClickHouse answers in the narrowest type of its argument (bitNot(1) is 254 for a UInt8), which hedgerow\'s 64-bit integers do not reproduce; bitAnd, bitOr, bitXor, bitTest* and bitCount are supported';
const APPROXIMATE = 'this is one of ClickHouse\'s approximate algorithms (t-digest, timing buckets, bfloat16, a seeded reservoir), whose answers hedgerow would not match; use median, medianExact or quantile';
const REINTERPRET = 'ClickHouse\'s reinterpretation of a value\'s bytes in memory is not reproduced';
const BLOCKS = 'ClickHouse\'s execution blocks and indexes have no counterpart in hedgerow';
const TUPLE_MATH = 'arithmetic over tuples is not supported; use arrays with dotProduct, L1Norm, L2Distance and the like';
const STATISTICS = 'this statistical aggregate is not reproduced; corr, covarPop, covarSamp and simpleLinearRegression are supported';
const TLDS = 'it depends on ClickHouse\'s built-in list of top-level domains; use domain, topLevelDomain or domainWithoutWWW';
const FUZZY = 'ClickHouse\'s Hyperscan and n-gram matching is not reproduced; use match, multiMatchAny or multiSearchAny';
const MISSING_FUNCTIONS: Record<string, string> = {
  ...Object.fromEntries(['cityHash64', 'sipHash64', 'sipHash128', 'xxHash32', 'xxHash64', 'murmurHash2_32', 'murmurHash2_64', 'murmurHash3_32', 'murmurHash3_64',
    'murmurHash3_128', 'farmHash64', 'farmFingerprint64', 'metroHash64', 'halfMD5', 'intHash32', 'intHash64', 'javaHash', 'hiveHash', 'gccMurmurHash', 'wyHash64'].map((n) => [n, HASHES])),
  ...Object.fromEntries(['windowFunnel', 'retention', 'sequenceMatch', 'sequenceCount'].map((n) => [n, FUNNEL_AGGREGATES])),
  ...Object.fromEntries(['countState', 'sumState', 'avgState', 'uniqState', 'countMerge', 'sumMerge', 'avgMerge', 'uniqMerge', 'uniqExactMerge', 'uniqUpToMerge',
    'argMinMerge', 'argMaxMerge'].map((n) => [n, STATES])),
  ...Object.fromEntries(['countStateIf', 'sumStateIf', 'avgStateIf', 'uniqStateIf', 'sumMergeIf', 'avgMergeIf', 'uniqMergeIf'].map((n) => [n, STATES])),
  ...Object.fromEntries(['map', 'mapFromArrays', 'mapAdd', 'mapSubtract', 'mapPopulateSeries', 'mapContains', 'mapKeys', 'mapValues', 'mapContainsKeyLike', 'mapExtractKeyLike',
    'mapApply', 'mapFilter', 'mapUpdate', 'countMapIf', 'avgMap', 'avgMapIf', 'avgMapState', 'avgMapMerge', 'avgMapMergeIf', 'sumMap', 'sumMapIf', 'sumMapMerge', 'sumMapMergeIf',
    'minMap', 'minMapIf', 'maxMap', 'maxMapIf', 'uniqMap', 'uniqMapMerge', 'uniqMapMergeIf'].map((n) => [n, MAPS])),
  ...Object.fromEntries(['bitmapBuild', 'bitmapToArray', 'bitmapSubsetInRange', 'bitmapSubsetLimit', 'subBitmap', 'bitmapContains', 'bitmapHasAny', 'bitmapHasAll', 'bitmapCardinality',
    'bitmapMin', 'bitmapMax', 'bitmapTransform', 'bitmapAnd', 'bitmapOr', 'bitmapXor', 'bitmapAndnot', 'bitmapAndCardinality', 'bitmapOrCardinality', 'bitmapXorCardinality',
    'bitmapAndnotCardinality', 'groupBitmap', 'groupBitmapIf', 'groupBitmapAnd', 'groupBitmapAndIf', 'groupBitmapOr', 'groupBitmapOrIf', 'groupBitmapXor', 'groupBitmapXorIf'].map((n) => [n, BITMAPS])),
  ...Object.fromEntries(['bitNot', 'bitShiftLeft', 'bitShiftRight', 'bitRotateLeft', 'bitRotateRight', 'bitSlice'].map((n) => [n, WIDTH])),
  ...Object.fromEntries(['medianTiming', 'medianTimingIf', 'medianTimingWeighted', 'medianTimingWeightedIf', 'medianDeterministic', 'medianDeterministicIf', 'medianTDigest',
    'medianTDigestIf', 'medianTDigestWeighted', 'medianTDigestWeightedIf', 'medianBFloat16', 'medianBFloat16If', 'groupArraySample', 'groupArraySampleIf'].map((n) => [n, APPROXIMATE])),
  ...Object.fromEntries(['UInt8', 'UInt16', 'UInt32', 'UInt64', 'UInt128', 'UInt256', 'Int8', 'Int16', 'Int32', 'Int64', 'Int128', 'Int256', 'Float32', 'Float64', 'UUID']
    .map((t) => [`reinterpretAs${t}`, REINTERPRET])),
  ...Object.fromEntries(['nowInBlock', 'rowNumberInBlock', 'rowNumberInAllBlocks', 'indexHint'].map((n) => [n, BLOCKS])),
  ...Object.fromEntries(['untuple', 'tupleHammingDistance', 'tupleToNameValuePairs', 'tuplePlus', 'tupleMinus', 'tupleMultiply', 'tupleDivide', 'tupleNegate',
    'tupleMultiplyByNumber', 'tupleDivideByNumber'].map((n) => [n, TUPLE_MATH])),
  ...Object.fromEntries(['contingency', 'contingencyIf', 'cramersV', 'cramersVIf', 'cramersVBiasCorrected', 'cramersVBiasCorrectedIf', 'theilsU', 'theilsUIf',
    'maxIntersections', 'maxIntersectionsIf', 'maxIntersectionsPosition', 'maxIntersectionsPositionIf', 'arrayAUC'].map((n) => [n, STATISTICS])),
  ...Object.fromEntries(['firstSignificantSubdomain', 'cutToFirstSignificantSubdomain', 'cutToFirstSignificantSubdomainWithWWW'].map((n) => [n, TLDS])),
  ...Object.fromEntries(['multiSearchFirstIndex', 'multiMatchAnyIndex', 'multiMatchAllIndices', 'multiFuzzyMatchAny', 'multiFuzzyMatchAnyIndex', 'multiFuzzyMatchAllIndices',
    'ngramDistance', 'ngramSearch'].map((n) => [n, FUZZY])),
  ...Object.fromEntries(['tumble', 'hop', 'tumbleStart', 'tumbleEnd', 'hopStart', 'hopEnd'].map((n) => [n, 'ClickHouse\'s streaming time windows are not supported; use toStartOfInterval'])),
  ...Object.fromEntries(['multiplyDecimal', 'divideDecimal'].map((n) => [n, 'hedgerow has no Decimal arithmetic; multiply and divide work on Float64'])),
  ...Object.fromEntries(['base58Encode', 'base58Decode', 'tryBase58Decode'].map((n) => [n, 'base58 is not available on the columnar store; base64Encode and base64Decode are'])),
  ...Object.fromEntries(['isValidUTF8', 'toValidUTF8'].map((n) => [n, 'hedgerow cannot tell invalid UTF-8 bytes apart: its text is stored as valid UTF-8'])),
  ...Object.fromEntries(['sumForEach', 'minForEach'].map((n) => [n, 'the -ForEach combinator is not supported; use arrayJoin and group by the index'])),
  ...Object.fromEntries(['groupArrayInsertAt', 'groupArrayInsertAtIf'].map((n) => [n, 'groupArrayInsertAt is not supported; use groupArray and arraySort'])),
  ...Object.fromEntries(['sumWithOverflow', 'sumWithOverflowIf'].map((n) => [n, 'hedgerow\'s sums do not wrap around on overflow; use sum'])),
  ...Object.fromEntries(['medianExactWeighted', 'medianExactWeightedIf', 'ifNotFinite'].map((n) => [n, 'PostHog lists it with one argument fewer than ClickHouse needs, so PostHog cannot run it either'])),
  arrayReduce: 'it takes an aggregate\'s name; use arraySum, arrayAvg, arrayMin, arrayMax, arrayUniq or arrayFold',
  generateSeries: 'it is a table function; use numbers(n) or range()',
  toJSONString: 'ClickHouse\'s JSON rendering of numbers and dates is not reproduced; build the text with concat, or read JSON with JSONExtract*',
  toDateTimeUS: 'ClickHouse\'s best-effort US date parsing is not reproduced; use parseDateTime with an explicit format',
  toTime: 'ClickHouse\'s Time type is not supported; use formatDateTime(t, \'%H:%i:%S\')',
  date_bin: 'intervals from an origin are not supported; use toStartOfInterval',
  make_timestamptz: 'use make_timestamp with its seventh argument, the time zone',
  JSONExtractKeysAndValues: 'use JSONExtractKeysAndValuesRaw, or JSONExtractKeys and JSONExtract* per key',
  erf: 'the error function is not available on the columnar store',
  erfc: 'the error function is not available on the columnar store',
  convertCharset: 'hedgerow\'s text is UTF-8 only',
  decodeXMLComponent: 'ClickHouse\'s XML entity decoding is not reproduced; use replace',
  extractTextFromHTML: 'ClickHouse\'s HTML text extraction is not reproduced',
  cutURLParameter: 'not reproduced; use extractURLParameters and cutQueryString',
  bar: 'ClickHouse\'s text bars are not reproduced; use sparkline',
  formatReadableTimeDelta: 'not reproduced; use formatReadableQuantity or dateDiff',
  extractIPv4Substrings: 'not reproduced',
  embedText: 'text embeddings need PostHog\'s AI service',
  convertCurrency: 'hedgerow keeps no exchange rates',
  getSurveyResponse: 'surveys are not part of hedgerow',
  uniqueSurveySubmissionsFilter: 'surveys are not part of hedgerow',
  explain_csp_report: 'CSP reports are not part of hedgerow',
  ...Object.fromEntries(['hogql_lookupDomainType', 'hogql_lookupPaidSourceType', 'hogql_lookupPaidMediumType', 'hogql_lookupOrganicSourceType', 'hogql_lookupOrganicMediumType']
    .map((n) => [n, 'PostHog\'s channel classification is not computed'])),
};

/** Why PostHog's function `name` is not compiled here, or null for a name PostHog lacks too. */
export function missingFunction(name: string): string | null {
  return Object.hasOwn(MISSING_FUNCTIONS, name) ? MISSING_FUNCTIONS[name] : null;
}

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
