import fc from 'fast-check';
import type { HttpRequest } from './http-client.js';

/**
 * fast-check arbitraries for requests a hostile or broken client might send to the tickets API: valid ones,
 * nearly valid ones and garbage, in the body, the headers, the path and the query. `id` placeholders in
 * paths are filled in with ids of tickets that exist when the request is sent (see FuzzRequest).
 */
export interface FuzzRequest extends HttpRequest {
  /** When set, the path's `{id}` is replaced with an existing ticket's id (the n-th, modulo how many exist). */
  existingId?: number;
}

/** Percent-encodes any string; an unpaired surrogate, which has no UTF-8 form, becomes the bytes of one (ED A0 80). */
const encode = (value: string) =>
  value
    .split(/([\uD800-\uDFFF])/u)
    .map((part, i) => (i % 2 ? '%ED%A0%80' : encodeURIComponent(part)))
    .join('');

const STATUSES = ['OPEN', 'IN_PROGRESS', 'WAITING_ON_CUSTOMER', 'RESOLVED', 'CLOSED'];
const PRIORITIES = ['LOW', 'MEDIUM', 'HIGH', 'CRITICAL'];

const loneSurrogate = fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF');
const weirdText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }),
  fc.string({ unit: fc.oneof(fc.string({ unit: 'binary', maxLength: 1 }), loneSurrogate), maxLength: 10 }),
  fc.constantFrom(
    '',
    ' ',
    '\t\n',
    '\u0000',
    '😀👩‍💻',
    '\u202E',
    '\u2028',
    '<script>alert(1)</script>',
    "'; DROP TABLE tickets; --",
    '%00',
    '${jndi:x}',
  ),
  fc.tuple(fc.constantFrom('a', '😀', 'é'), fc.constantFrom(254, 255, 256, 1999, 2000, 2001)).map(([c, n]) => c.repeat(n)),
);
const anyJson = fc.jsonValue({ maxDepth: 3 });
const fieldValue = fc.oneof(
  { weight: 6, arbitrary: weirdText },
  { weight: 1, arbitrary: anyJson },
  { weight: 1, arbitrary: fc.constant(null) },
);
const enumValue = (values: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...values) },
    { weight: 1, arbitrary: fc.constantFrom(...values).map((value) => value.toLowerCase()) },
    { weight: 1, arbitrary: fieldValue },
  );
const email = fc.oneof(
  { weight: 5, arbitrary: fc.emailAddress() },
  { weight: 1, arbitrary: fc.constantFrom('user@localhost', 'a@b', '@x', 'x@', 'a b@c.d', '"quoted"@example.com', 'x@[127.0.0.1]') },
  { weight: 1, arbitrary: fieldValue },
);

/** Strings the API must take and store exactly: emoji, NUL and other controls, RTL marks, markup, at the limits. */
const acceptedText = (max: number) =>
  fc
    .oneof(weirdText, fc.constantFrom('😀'.repeat(max), 'é'.repeat(max), `\u0000${'x'.repeat(max - 1)}`))
    .filter((value) => value.trim() !== '' && [...value].length <= max && !/[\uD800-\uDFFF]/u.test(value));
const serverOwned = {
  id: fc.oneof(fc.integer(), fieldValue),
  createdAt: fc.oneof(
    fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    fieldValue,
  ),
  updatedAt: fieldValue,
  resolvedAt: fc.oneof(
    fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
    fieldValue,
  ),
};
const validTicket = fc.record(
  {
    title: acceptedText(255),
    description: acceptedText(2000),
    status: fc.constantFrom(...STATUSES),
    priority: fc.constantFrom(...PRIORITIES),
    requesterEmail: fc.emailAddress().filter((address) => address.length <= 255),
    assignedTo: fc.oneof(fc.constant(null), fc.constant(''), acceptedText(255)),
    ...serverOwned,
  },
  { requiredKeys: ['title', 'description', 'status', 'priority', 'requesterEmail'] },
);
const anyTicket = fc.record(
  {
    title: fieldValue,
    description: fieldValue,
    status: enumValue(STATUSES),
    priority: enumValue(PRIORITIES),
    requesterEmail: email,
    assignedTo: fieldValue,
    ...serverOwned,
  },
  { requiredKeys: [] },
);
const prototypeKeys = fc.array(
  fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'x'), anyJson),
  {
    maxLength: 3,
  },
);

/** A ticket body: half of them acceptable, the rest with wrong types, limits broken; server-owned and prototype keys mixed in. */
const ticketBody = fc.tuple(fc.oneof(validTicket, anyTicket), prototypeKeys).map(([fields, extraKeys]) => {
  // JSON text built by hand: a JS object literal cannot hold an own "__proto__" key.
  const members = [...Object.entries(fields), ...extraKeys].map(
    ([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`,
  );
  return `{${members.join(',')}}`;
});

const nested = fc
  .tuple(fc.oneof(fc.integer({ min: 1, max: 80 }), fc.constantFrom(5_000, 100_000)), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => {
    const close = open === '[' ? ']' : '}';
    return `{"title":${open.repeat(depth)}1${close.repeat(depth)}}`;
  });

const body = fc.oneof(
  { weight: 12, arbitrary: ticketBody },
  { weight: 2, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: nested },
  { weight: 1, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 80 }).map((bytes) => Buffer.from(bytes)) },
  { weight: 1, arbitrary: fc.constantFrom('', '{', '{"title":"\\ud800"}', '{"a":1,}', 'null', '[]', '"x"', '{"title":"x"}'.repeat(2)) },
);

const headerText = fc.string({ unit: fc.constantFrom(...'abcxyz019 ;=/,*"+-_.:\t'.split('')), maxLength: 30 });
const contentType = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json; charset=bogus',
      'application/merge-patch+json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json;;;=',
      'APPLICATION/JSON',
      '',
    ),
  },
  { weight: 1, arbitrary: headerText },
);
/** Present in one request out of `oneIn`. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, oneIn: number) =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
const headers = fc
  .record({
    'content-type': fc.oneof(
      { weight: 1, arbitrary: fc.constant(undefined) },
      { weight: 12, arbitrary: contentType },
      { weight: 1, arbitrary: fc.array(contentType, { minLength: 2, maxLength: 3 }) },
    ),
    'content-encoding': sometimes(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, deflate'), 12),
    'if-match': sometimes(fc.oneof(fc.constantFrom('*', '"1-1"', 'W/"1-1"', '""', '"a", "b"'), headerText), 6),
    accept: sometimes(fc.oneof(fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml'), headerText), 6),
    'x-request-id': sometimes(headerText, 6),
  })
  .map((all) => Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined)));

const pathId = fc.oneof(
  { weight: 4, arbitrary: fc.constant('{id}') },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '-1',
      '0',
      '1.5',
      '1e3',
      '0x10',
      '00001',
      '%00',
      '%',
      '%E0%A4%A',
      '%2F',
      '..',
      '%2e%2e',
      '9223372036854775807',
      '9223372036854775808',
      'null',
      '%20%31',
      '%ED%A0%80',
      '%C0%AF',
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }).map(encode) },
);

const queryValue = fc.oneof(fc.constantFrom(...STATUSES, 'open', '', '%', '%zz', 'a@example.com', 'A@EXAMPLE.COM'), weirdText.map(encode));
const queryKey = fc.constantFrom(
  'status',
  'status',
  'requesterEmail',
  'requesterEmail',
  'status[]',
  'status[a]',
  'priority',
  'sort',
  'page',
  '__proto__',
  'constructor[prototype][x]',
  '',
);
const query = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 5 })
  .chain((pairs) =>
    fc
      .integer({ min: 0, max: 10 })
      .map((padding) => (padding === 10 ? [...pairs, ...Array.from({ length: 101 }, (_, i) => [`p${i}`, '1'])] : pairs)),
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([key, value]) => `${key}=${value}`).join('&')}` : ''));

const method = (...common: string[]) =>
  fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...common) },
    { weight: 1, arbitrary: fc.constantFrom('PATCH', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND') },
  );

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ method: method('GET'), path: query.map((q) => `/api/tickets${q}`), headers }) },
  {
    weight: 4,
    arbitrary: fc.record({
      method: method('GET', 'DELETE'),
      path: pathId.map((id) => `/api/tickets/${id}`),
      headers,
      existingId: fc.nat(),
    }),
  },
  { weight: 6, arbitrary: fc.record({ method: method('POST'), path: fc.constant('/api/tickets'), headers, body }) },
  {
    weight: 6,
    arbitrary: fc.record({ method: method('PUT'), path: pathId.map((id) => `/api/tickets/${id}`), headers, body, existingId: fc.nat() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      method: method('GET', 'POST', 'PUT', 'DELETE'),
      path: fc.constantFrom(
        '/api',
        '/api/',
        '/api/tickets/',
        '/api//tickets',
        '/api/tickets/1/x',
        '/api/ticket',
        '/API/TICKETS',
        '/%',
        '/api/%ZZ',
        '/api/tickets/1;a=b',
      ),
      headers,
      body,
    }),
  },
);
