// Every function name PostHog's HogQL accepts (posthog/hogql/functions/mapping.py, the
// clickhouse/*.py beside it, aggregations.py and posthog.py, read on 2026-11-29) is either in
// hedgerow's catalogue or refused by name with why (unsupported.ts): none falls through to
// the bare "Unsupported function call". The names are PostHog's facts; nothing else is copied.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { lookupFunction } from '../../src/insights/planner/hogql/functions/index.js';
import { missingFunction } from '../../src/insights/planner/hogql/unsupported.js';

const c = suite('hogql: PostHog\u2019s function catalogue, covered');

// Comparisons PostHog lists as functions compile to operators (compile.ts), not the catalogue.
const OPERATORS = new Set(['equals', 'notEquals', 'less', 'greater', 'lessOrEquals', 'greaterOrEquals', 'in', 'notIn']);
const POSTHOG_NAMES = [
  'plus', 'minus', 'multiply', 'divide', 'intDiv', 'intDivOrZero', 'modulo', 'moduloOrZero', 'positiveModulo', 'negate', 'abs', 'gcd', 'lcm', 'max2',
  'min2', 'multiplyDecimal', 'divideDecimal', 'empty', 'notEmpty', 'length', 'reverse', 'array', 'range', 'arrayConcat', 'arrayElement', 'has',
  'hasAll', 'hasAny', 'hasSubstr', 'indexOf', 'arrayCount', 'countEqual', 'arrayEnumerate', 'arrayEnumerateUniq', 'arrayPopBack', 'arrayPopFront',
  'arrayPushBack', 'arrayPushFront', 'arrayResize', 'arraySlice', 'arraySort', 'arrayReverseSort', 'arrayUniq', 'arrayJoin', 'arrayDifference',
  'arrayDistinct', 'arrayEnumerateDense', 'arrayIntersect', 'arrayReduce', 'arrayReverse', 'arrayFilter', 'arrayFlatten', 'arrayCompact', 'arrayZip',
  'arrayAUC', 'arrayMap', 'arrayFill', 'arrayFold', 'arrayWithConstant', 'arraySplit', 'arrayReverseFill', 'arrayReverseSplit', 'arrayRotateLeft',
  'arrayRotateRight', 'arrayExists', 'arrayAll', 'arrayFirst', 'arrayLast', 'arrayFirstIndex', 'arrayLastIndex', 'arrayMin', 'arrayMax', 'arraySum',
  'arrayAvg', 'arrayCumSum', 'arrayCumSumNonNegative', 'arrayProduct', 'arrayStringConcat', 'generateSeries', 'hex', 'unhex', 'reinterpretAsUInt8',
  'reinterpretAsUInt16', 'reinterpretAsUInt32', 'reinterpretAsUInt64', 'reinterpretAsUInt128', 'reinterpretAsUInt256', 'reinterpretAsInt8',
  'reinterpretAsInt16', 'reinterpretAsInt32', 'reinterpretAsInt64', 'reinterpretAsInt128', 'reinterpretAsInt256', 'reinterpretAsFloat32',
  'reinterpretAsFloat64', 'reinterpretAsUUID', 'toInt', 'toIntOrZero', 'toFloat', 'toFloatOrZero', 'toFloatOrDefault', 'toDecimal', 'toUUID',
  'toString', 'toBool', 'toJSONString', 'parseDateTime', 'parseDateTimeBestEffort', 'toTypeName', 'cityHash64', 'UUIDv7ToDateTime', 'toDate',
  'to_date', 'toDateTime', 'toDateTime64', 'toDateTimeUS', 'isnull', 'isNotNull', 'coalesce', 'ifnull', 'nullif', 'assumeNotNull', 'toNullable',
  'timeZoneOf', 'timeZoneOffset', 'toYear', 'toQuarter', 'toMonth', 'toDayOfYear', 'toDayOfMonth', 'toDayOfWeek', 'toHour', 'toMinute', 'toSecond',
  'toUnixTimestamp', 'toUnixTimestamp64Milli', 'fromUnixTimestamp64Milli', 'toStartOfInterval', 'toStartOfYear', 'toStartOfISOYear',
  'toStartOfQuarter', 'toStartOfMonth', 'toLastDayOfMonth', 'toMonday', 'toStartOfWeek', 'toStartOfDay', 'toLastDayOfWeek', 'toStartOfHour',
  'toStartOfMinute', 'toStartOfSecond', 'toStartOfFiveMinutes', 'toStartOfTenMinutes', 'toStartOfFifteenMinutes', 'toTime', 'toISOYear', 'toISOWeek',
  'toWeek', 'toYearWeek', 'age', 'dateAdd', 'dateSub', 'date_bin', 'date_add', 'date_subtract', 'date_diff', 'dateDiff', 'timeStampAdd',
  'timeStampSub', 'nowInBlock', 'rowNumberInBlock', 'rowNumberInAllBlocks', 'timeSlot', 'toYYYYMM', 'toYYYYMMDD', 'toYYYYMMDDhhmmss', 'addYears',
  'addMonths', 'addWeeks', 'addDays', 'addHours', 'addMinutes', 'addSeconds', 'addQuarters', 'subtractYears', 'subtractMonths', 'subtractWeeks',
  'subtractDays', 'subtractHours', 'subtractMinutes', 'subtractSeconds', 'subtractQuarters', 'timeSlots', 'formatDateTime', 'dateName', 'monthName',
  'fromUnixTimestamp', 'toModifiedJulianDay', 'fromModifiedJulianDay', 'now', 'yesterday', 'current_timestamp', 'today', 'current_date',
  'toIntervalSecond', 'toIntervalMinute', 'toIntervalHour', 'toIntervalDay', 'toIntervalWeek', 'toIntervalMonth', 'toIntervalQuarter',
  'toIntervalYear', 'date_part', 'date_trunc', 'dateTrunc', 'to_timestamp', 'to_char', 'make_timestamp', 'make_date', 'make_interval',
  'make_timestamptz', 'timezone', 'toTimeZone', 'isValidJSON', 'JSONHas', 'JSONLength', 'JSONArrayLength', 'JSONType', 'JSONExtract',
  'JSONExtractUInt', 'JSONExtractInt', 'JSONExtractFloat', 'JSONExtractBool', 'JSONExtractString', 'JSONExtractKeys', 'JSONExtractRaw',
  'JSONExtractArrayRaw', 'JSONExtractKeysAndValues', 'JSONExtractKeysAndValuesRaw', 'JSON_VALUE', 'e', 'pi', 'exp', 'log', 'ln', 'exp2', 'log2',
  'exp10', 'log10', 'sqrt', 'cbrt', 'erf', 'erfc', 'lgamma', 'tgamma', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'pow', 'power', 'intExp2',
  'intExp10', 'cosh', 'acosh', 'sinh', 'asinh', 'atanh', 'atan2', 'hypot', 'log1p', 'sign', 'degrees', 'radians', 'factorial', 'width_bucket', 'floor',
  'ceil', 'trunc', 'round', 'roundBankers', 'roundToExp2', 'roundDuration', 'roundAge', 'roundDown', 'left', 'right', 'lengthUTF8', 'leftPad',
  'rightPad', 'leftPadUTF8', 'rightPadUTF8', 'lower', 'upper', 'lowerUTF8', 'upperUTF8', 'isValidUTF8', 'toValidUTF8', 'format', 'reverseUTF8',
  'concat', 'substring', 'substringUTF8', 'appendTrailingCharIfAbsent', 'convertCharset', 'base58Encode', 'base58Decode', 'tryBase58Decode',
  'base64Encode', 'base64Decode', 'tryBase64Decode', 'endsWith', 'startsWith', 'encodeXMLComponent', 'decodeXMLComponent', 'extractTextFromHTML',
  'ascii', 'concatWithSeparator', 'position', 'positionCaseInsensitive', 'positionUTF8', 'positionCaseInsensitiveUTF8', 'multiSearchAllPositions',
  'multiSearchAllPositionsUTF8', 'multiSearchFirstPosition', 'multiSearchFirstIndex', 'multiSearchAny', 'match', 'multiMatchAny', 'multiMatchAnyIndex',
  'multiMatchAllIndices', 'multiFuzzyMatchAny', 'multiFuzzyMatchAnyIndex', 'multiFuzzyMatchAllIndices', 'extract', 'extractAll',
  'extractAllGroupsHorizontal', 'extractAllGroupsVertical', 'like', 'ilike', 'notLike', 'notILike', 'ngramDistance', 'ngramSearch', 'countSubstrings',
  'countSubstringsCaseInsensitive', 'countSubstringsCaseInsensitiveUTF8', 'countMatches', 'regexpExtract', 'replace', 'replaceAll', 'replaceOne',
  'replaceRegexpAll', 'replaceRegexpOne', 'regexpQuoteMeta', 'translate', 'translateUTF8', 'splitByChar', 'splitByString', 'splitByRegexp',
  'splitByWhitespace', 'splitByNonAlpha', 'alphaTokens', 'extractAllGroups', 'ngrams', 'tokens', 'repeat', 'initcap', 'lpad', 'rpad', 'split_part',
  'ltrim', 'trimLeft', 'rtrim', 'trimRight', 'btrim', 'trim', 'equals', 'notEquals', 'less', 'greater', 'lessOrEquals', 'greaterOrEquals', 'in',
  'notIn', 'and', 'or', 'xor', 'not', 'if', 'multiIf', 'map', 'mapFromArrays', 'mapAdd', 'mapSubtract', 'mapPopulateSeries', 'mapContains', 'mapKeys',
  'mapValues', 'mapContainsKeyLike', 'mapExtractKeyLike', 'mapApply', 'mapFilter', 'mapUpdate', 'bitAnd', 'bitOr', 'bitXor', 'bitNot', 'bitShiftLeft',
  'bitShiftRight', 'bitRotateLeft', 'bitRotateRight', 'bitSlice', 'bitTest', 'bitTestAll', 'bitTestAny', 'bitCount', 'bitHammingDistance',
  'bitmapBuild', 'bitmapToArray', 'bitmapSubsetInRange', 'bitmapSubsetLimit', 'subBitmap', 'bitmapContains', 'bitmapHasAny', 'bitmapHasAll',
  'bitmapCardinality', 'bitmapMin', 'bitmapMax', 'bitmapTransform', 'bitmapAnd', 'bitmapOr', 'bitmapXor', 'bitmapAndnot', 'bitmapAndCardinality',
  'bitmapOrCardinality', 'bitmapXorCardinality', 'bitmapAndnotCardinality', 'protocol', 'domain', 'domainWithoutWWW', 'topLevelDomain',
  'firstSignificantSubdomain', 'cutToFirstSignificantSubdomain', 'cutToFirstSignificantSubdomainWithWWW', 'port', 'path', 'pathFull', 'queryString',
  'fragment', 'queryStringAndFragment', 'extractURLParameter', 'extractURLParameters', 'extractURLParameterNames', 'URLHierarchy', 'URLPathHierarchy',
  'encodeURLComponent', 'decodeURLComponent', 'encodeURLFormComponent', 'decodeURLFormComponent', 'netloc', 'cutWWW', 'cutQueryString', 'cutFragment',
  'cutQueryStringAndFragment', 'cutURLParameter', 'tuple', 'tupleElement', 'untuple', 'tupleHammingDistance', 'tupleToNameValuePairs', 'tuplePlus',
  'tupleMinus', 'tupleMultiply', 'tupleDivide', 'tupleNegate', 'tupleMultiplyByNumber', 'tupleDivideByNumber', 'dotProduct', 'isFinite', 'isInfinite',
  'ifNotFinite', 'isNaN', 'bar', 'transform', 'formatReadableDecimalSize', 'formatReadableSize', 'formatReadableQuantity', 'formatReadableTimeDelta',
  'least', 'greatest', 'indexHint', 'extractIPv4Substrings', 'tumble', 'hop', 'tumbleStart', 'tumbleEnd', 'hopStart', 'hopEnd', 'L1Norm', 'L2Norm',
  'LinfNorm', 'LpNorm', 'L1Distance', 'L2Distance', 'LinfDistance', 'LpDistance', 'L1Normalize', 'L2Normalize', 'LinfNormalize', 'LpNormalize',
  'cosineDistance', 'rank', 'dense_rank', 'row_number', 'first_value', 'last_value', 'nth_value', 'lagInFrame', 'leadInFrame', 'lag', 'lead',
  'languageCodeToName', 'count', 'countIf', 'countState', 'countMerge', 'countStateIf', 'countDistinctIf', 'countMapIf', 'min', 'minIf', 'max',
  'maxIf', 'sum', 'sumForEach', 'minForEach', 'sumIf', 'avg', 'avgIf', 'avgMap', 'avgMapIf', 'avgMapState', 'avgMapMerge', 'avgMapMergeIf', 'any',
  'anyIf', 'stddevPop', 'stddevPopIf', 'stddevSamp', 'stddevSampIf', 'varPop', 'varPopIf', 'varSamp', 'varSampIf', 'covarPop', 'covarPopIf',
  'covarSamp', 'covarSampIf', 'corr', 'array_agg', 'groupArray', 'json_agg', 'string_agg', 'every', 'anyHeavy', 'anyHeavyIf', 'anyLast', 'anyLastIf',
  'argMin', 'argMinIf', 'argMax', 'argMaxIf', 'argMinMerge', 'argMaxMerge', 'avgState', 'avgStateIf', 'avgMerge', 'avgMergeIf', 'avgWeighted',
  'avgWeightedIf', 'avgArray', 'topK', 'groupArrayIf', 'groupUniqArray', 'groupUniqArrayIf', 'groupArrayInsertAt', 'groupArrayInsertAtIf',
  'groupArrayMovingAvg', 'groupArrayMovingAvgIf', 'groupArrayMovingSum', 'groupArrayMovingSumIf', 'groupArraySample', 'groupArraySampleIf',
  'groupBitAnd', 'groupBitAndIf', 'groupBitOr', 'groupBitOrIf', 'groupBitXor', 'groupBitXorIf', 'groupBitmap', 'groupBitmapIf', 'groupBitmapAnd',
  'groupBitmapAndIf', 'groupBitmapOr', 'groupBitmapOrIf', 'groupBitmapXor', 'groupBitmapXorIf', 'sumWithOverflow', 'sumWithOverflowIf', 'deltaSum',
  'deltaSumIf', 'deltaSumTimestamp', 'deltaSumTimestampIf', 'sumMap', 'sumMapIf', 'sumMapMerge', 'sumMapMergeIf', 'minMap', 'minMapIf', 'maxMap',
  'maxMapIf', 'sumMerge', 'sumMergeIf', 'sumState', 'sumStateIf', 'medianArray', 'skewSamp', 'skewSampIf', 'skewPop', 'skewPopIf', 'kurtSamp',
  'kurtSampIf', 'kurtPop', 'kurtPopIf', 'uniq', 'uniqIf', 'uniqExact', 'uniqExactIf', 'uniqHLL12', 'uniqHLL12If', 'uniqTheta', 'uniqThetaIf',
  'uniqMerge', 'uniqMergeIf', 'uniqMap', 'uniqMapMerge', 'uniqMapMergeIf', 'uniqState', 'uniqStateIf', 'uniqUpToMerge', 'uniqExactMerge', 'median',
  'medianIf', 'medianExact', 'medianExactIf', 'medianExactLow', 'medianExactLowIf', 'medianExactHigh', 'medianExactHighIf', 'medianExactWeighted',
  'medianExactWeightedIf', 'medianTiming', 'medianTimingIf', 'medianTimingWeighted', 'medianTimingWeightedIf', 'medianDeterministic',
  'medianDeterministicIf', 'medianTDigest', 'medianTDigestIf', 'medianTDigestWeighted', 'medianTDigestWeightedIf', 'medianBFloat16',
  'medianBFloat16If', 'quantile', 'quantileIf', 'quantiles', 'quantilesIf', 'simpleLinearRegression', 'simpleLinearRegressionIf', 'contingency',
  'contingencyIf', 'cramersV', 'cramersVIf', 'cramersVBiasCorrected', 'cramersVBiasCorrectedIf', 'theilsU', 'theilsUIf', 'maxIntersections',
  'maxIntersectionsIf', 'maxIntersectionsPosition', 'maxIntersectionsPositionIf', 'windowFunnel', 'md5', 'matchesAction', 'sparkline',
  'recording_button', 'explain_csp_report', 'hogql_lookupDomainType', 'hogql_lookupPaidSourceType', 'hogql_lookupPaidMediumType',
  'hogql_lookupOrganicSourceType', 'hogql_lookupOrganicMediumType', 'convertCurrency',
];

c('each of PostHog\u2019s names compiles or is refused with a reason', () => {
  const uncovered = POSTHOG_NAMES.filter((name) => !OPERATORS.has(name) && lookupFunction(name) === undefined && missingFunction(name) === null);
  assert.equal(uncovered, []);
});

c('a refused name is not also compiled (one answer per name)', () => {
  const both = POSTHOG_NAMES.filter((name) => lookupFunction(name) !== undefined && missingFunction(name) !== null);
  assert.equal(both, []);
});

c('case: exact names, and lowercase only where PostHog allows it', () => {
  for (const name of ['POW', 'Exp', 'LOG10', 'Sqrt', 'CEIL', 'Trunc', 'REPLACE', 'Position', 'EXTRACT', 'Greatest', 'LEAST', 'Reverse']) assert.ok(lookupFunction(name), name);
  for (const name of ['EXP2', 'Exp10', 'concatwithseparator', 'TOWEEK', 'Arrayzip', 'FormatReadableSize']) assert.is(lookupFunction(name), undefined, name);
});

c.run();
