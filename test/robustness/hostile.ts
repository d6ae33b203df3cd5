// Hostile inputs for the robustness walk: a seeded PRNG, hostile JSON values, raw bodies, query values and
// path segments, and a baseline body built from a route's OpenAPI request schema. Everything is
// deterministic for one seed, so a failure printed by the walk can be replayed exactly.

/** mulberry32: small, fast, good enough to pick test cases reproducibly. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    next,
    int,
    pick<T>(xs: readonly T[]): T {
      return xs[int(xs.length)];
    },
    /** k distinct items (all when k >= length), in a seeded order. */
    sample<T>(xs: readonly T[], k: number): T[] {
      const copy = xs.slice();
      for (let i = copy.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [copy[i], copy[j]] = [copy[j], copy[i]];
      }
      return copy.slice(0, Math.min(k, copy.length));
    },
  };
}
export type Prng = ReturnType<typeof prng>;

/** A stable 32-bit hash of a string (FNV-1a), to derive one PRNG per route from the run's seed. */
export function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A JSON value to put in a body, given as JSON text so that values JSON.stringify cannot write are possible. */
export interface HostileValue {
  label: string;
  json: string;
}

const v = (label: string, value: unknown): HostileValue => ({ label, json: JSON.stringify(value) });
const raw = (label: string, json: string): HostileValue => ({ label, json });

/** Strings that are valid JSON strings but hostile to what handles them. */
export const HOSTILE_STRINGS: Record<string, string> = {
  empty: '',
  blank: '   ',
  crlfHeader: 'x\r\nBcc: victim@evil.example\r\n\r\nbody',
  lf: 'a\nb',
  tab: '\t',
  rtlOverride: '\u202Egnp.exe\u202C',
  zeroWidth: '\u200B\u200C\u200D\uFEFF',
  astral: '\u{1F600}\u{1D54F}\u{10FFFF}',
  astralLong: '\u{1F4A9}'.repeat(3000),
  combining: `e${'\u0301'.repeat(500)}`,
  nonChars: '\uFFFE\uFFFF\uFDD0',
  bidiMix: 'abc\u05D0\u05D1\u0627\u200F\u200E',
  long1k: 'a'.repeat(1_001),
  long100k: 'b'.repeat(100_001),
  numeric: '1',
  negative: '-1',
  huge: '99999999999999999999',
  bigint: '9223372036854775808',
  float: '1.5',
  exp: '1e309',
  nan: 'NaN',
  bool: 'true',
  nullWord: 'null',
  sql: "'; DROP TABLE servers; --",
  likeWildcards: '%_%\\',
  html: '<script>alert(1)</script><img src=x onerror=alert(1)>',
  mustache: '{{#each x}}{{{y}}}{{/each}}{{> partial}}{{',
  path: '../../../../etc/passwd',
  url: 'http://127.0.0.1:1/\u0000',
  email: 'a@b.example',
  emailList: Array.from({ length: 60 }, (_, i) => `r${i}@d.example`).join(','),
  badEmail: '"quoted\\"@local"@[IPv6:::1]',
  date: '2024-02-30T25:61:61+99:00',
  dateFar: '-271821-04-19T00:00:00Z',
  dateBig: '+275760-09-13T00:00:01Z',
  dateOk: '2026-03-10',
  latin1: '\u00ff\u00fe\u00e9',
  controls: '\u0001\u0002\u001b[31m\u007f',
  backslashes: '\\\\\\"\\',
  proto: '__proto__',
};

/** Hostile JSON values of every type, for any field of any body. */
export const HOSTILE_VALUES: HostileValue[] = [
  v('null', null),
  v('true', true),
  v('false', false),
  v('zero', 0),
  v('minusOne', -1),
  v('float', 1.5),
  v('negFloat', -0.000001),
  v('int32Overflow', 2 ** 31),
  v('uint32Overflow', 2 ** 32 + 1),
  v('beyondSafe', 2 ** 53 + 2),
  raw('hugeLiteral', '99999999999999999999'),
  raw('bigintLiteral', '9223372036854775808'),
  raw('infinityLiteral', '1e400'),
  raw('negInfinityLiteral', '-1e400'),
  raw('tinyLiteral', '1e-400'),
  v('maxDouble', Number.MAX_VALUE),
  ...Object.entries(HOSTILE_STRINGS).map(([k, s]) => v(`str:${k}`, s)),
  v('emptyArray', []),
  v('arrayOfNull', [null]),
  v('arrayOfStrings', ['a@b.example', 'x']),
  v('arrayOfObjects', [{}, { Name: 'n', Value: 'v' }]),
  v('nestedArrays', [[[[[]]]]]),
  v('bigArray', Array.from({ length: 2000 }, (_, i) => `x${i}@d.example`)),
  v('bigObjectArray', Array.from({ length: 1000 }, (_, i) => ({ Name: `n${i}`, Value: 'v', Email: `x${i}@d.example`, EmailAddress: `x${i}@d.example` }))),
  v('emptyObject', {}),
  v('object', { a: 1, Name: null }),
  raw('protoObject', '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}'),
  v('manyKeys', Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, i]))),
  raw('deepObject', `${'{"a":'.repeat(50)}1${'}'.repeat(50)}`),
];

/** Whole bodies, as raw text, that are broken or of the wrong shape. */
export function hostileRawBodies(): { label: string; body: string | Buffer; contentType?: string | null }[] {
  return [
    { label: 'empty', body: '' },
    { label: 'whitespace', body: ' \r\n\t ' },
    { label: 'null', body: 'null' },
    { label: 'true', body: 'true' },
    { label: 'number', body: '42' },
    { label: 'hugeNumber', body: '99999999999999999999' },
    { label: 'string', body: '"hello"' },
    { label: 'emptyArray', body: '[]' },
    { label: 'arrayOfObject', body: '[{}]' },
    { label: 'arrayOfNumbers', body: '[1,2,3]' },
    { label: 'truncated', body: '{"Name": "a' },
    { label: 'openBrace', body: '{' },
    { label: 'trailingComma', body: '{"a":1,}' },
    { label: 'singleQuotes', body: "{'a':1}" },
    { label: 'NaN', body: 'NaN' },
    { label: 'twoDocuments', body: '{"a":1}{"b":2}' },
    { label: 'bom', body: '\uFEFF{}' },
    { label: 'comment', body: '{/* c */"a":1}' },
    { label: 'nulEscapeValue', body: '{"Name":"a\\u0000b"}' },
    { label: 'nulEscapeKey', body: '{"\\u0000":1}' },
    { label: 'loneHighSurrogate', body: '{"Name":"\\ud800"}' },
    { label: 'loneLowSurrogate', body: '{"Name":"x\\udc00y"}' },
    { label: 'surrogateKey', body: '{"\\udfff":"x"}' },
    { label: 'rawNul', body: '{"Name":"a\u0000b"}' },
    { label: 'duplicateKeys', body: '{"Name":"a","Name":1,"Name":null}' },
    { label: 'deepArrays', body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
    { label: 'deepObjects', body: `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}` },
    { label: 'deepArraysUnclosed', body: '['.repeat(200_000) },
    { label: 'moderatelyDeep', body: `${'{"a":'.repeat(70)}1${'}'.repeat(70)}` },
    { label: 'protoPollution', body: '{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}}}' },
    { label: 'oversize', body: `{"Name":"${'x'.repeat(1_100_000)}"}` },
    { label: 'invalidUtf8', body: Buffer.from([0x7b, 0x22, 0x4e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0x22, 0x7d]) },
    { label: 'utf16Body', body: Buffer.from('{"Name":"a"}', 'utf16le'), contentType: 'application/json; charset=utf-16' },
    { label: 'textPlain', body: '{"Name":"a"}', contentType: 'text/plain' },
    { label: 'formEncoded', body: 'Name=a&Name=b', contentType: 'application/x-www-form-urlencoded' },
    { label: 'multipart', body: '--b\r\nContent-Disposition: form-data; name="Name"\r\n\r\na\r\n--b--\r\n', contentType: 'multipart/form-data; boundary=b' },
    { label: 'jsonSuffixType', body: '{}', contentType: 'application/jsonx' },
    { label: 'upperCaseType', body: '{}', contentType: 'APPLICATION/JSON; CHARSET=UTF-8' },
    { label: 'weirdCharset', body: '{}', contentType: 'application/json; charset=ebcdic' },
    { label: 'noContentType', body: '{}', contentType: null },
    { label: 'garbageType', body: '{}', contentType: ';;;==/\u00ff' },
  ];
}

/** Query values (already percent-encoded) for any query key. */
export const HOSTILE_QUERY_VALUES: string[] = [
  '',
  '-1',
  '0',
  '1.5',
  '-0',
  '+1',
  '0x10',
  '1e3',
  '1e309',
  'NaN',
  'Infinity',
  '-Infinity',
  '-1e309',
  '99999999999999999999',
  '9223372036854775808',
  '9007199254740993',
  '2147483648',
  'abc',
  'true',
  'null',
  '%00',
  '%ED%A0%80',
  '%FF%FE',
  '%',
  '%2',
  '%ZZ',
  '%E2%80%AE',
  '%F0%9F%98%80',
  '%0D%0ASet-Cookie:%20x=1',
  "'%20OR%201=1--",
  '%25_%5C',
  '[]',
  '{}',
  '2024-02-30',
  '0000-00-00',
  '2024-01-01T00:00:00%2B99:99',
  '-271821-04-19',
  '%2B275760-09-14',
  '9999-12-31T23:59:59.999Z',
  ' 1',
  '1,2',
  'a'.repeat(5000),
];

/** Path segments (already percent-encoded where needed) for any path parameter. */
export const HOSTILE_PATH_VALUES: string[] = [
  '0',
  '-1',
  '1.5',
  '1e3',
  '0x10',
  '-0',
  '+1',
  '99999999999999999999',
  '9223372036854775808',
  '9223372036854775807',
  '2147483648',
  '4294967296',
  '9007199254740993',
  'abc',
  'null',
  'true',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '%20',
  '%00',
  '%ED%A0%80',
  '%FF',
  '%ZZ',
  '%',
  '%E2%80%AE',
  '%F0%9F%98%80',
  '%0D%0A',
  '..',
  '%2E%2E%2F%2E%2E',
  "'%20OR%201=1",
  'a'.repeat(400),
  'a'.repeat(600),
  '%5B%5D',
  'outbound',
  'broadcast',
  'pm-reserved',
  'all',
];

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[]; oneOf?: JsonSchema[] } & Record<string, unknown>;

/** The non-null branch of a (possibly nullable) schema. */
function concrete(s: JsonSchema | undefined): JsonSchema | undefined {
  if (!s) return undefined;
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return concrete(alts.find((a) => a.type !== 'null') ?? alts[0]);
  return s;
}

/** A plausible value for a schema (strings, small numbers, first-level objects), to mutate one field at a time. */
export function baseline(schema: JsonSchema | undefined, depth = 0): unknown {
  const s = concrete(schema);
  if (!s) return {};
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth < 3) for (const [k, p] of Object.entries(s.properties ?? {})) out[k] = baseline(p, depth + 1);
      return out;
    }
    case 'array':
      return depth < 3 ? [baseline(s.items, depth + 1)] : [];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      return 'robust';
    default:
      return 'robust';
  }
}

/** Every field path of a baseline (one level into objects and first array items), for targeted mutation. */
export function fieldPaths(value: unknown, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      out.push([...prefix, i]);
      if (item !== null && typeof item === 'object') fieldPaths(item, [...prefix, i], out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [k, item] of Object.entries(value)) {
      out.push([...prefix, k]);
      if (item !== null && typeof item === 'object') fieldPaths(item, [...prefix, k], out);
    }
  }
  return out;
}

/** JSON text of `base` with the value at `path` replaced by the raw JSON `json`. */
export function withField(base: unknown, path: (string | number)[], json: string): string {
  const marker = "@@ROBUST_FIELD_MARKER@@";
  const copy = JSON.parse(JSON.stringify(base ?? {}));
  let at: any = copy;
  for (const p of path.slice(0, -1)) at = at[p];
  at[path[path.length - 1]] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), json);
}
