/**
 * The requests `npm run parity` sends to both services: error paths by class (each parameter type
 * and bound, several failures at once, bodies, encodings, content types, paths, methods, keys),
 * plus the success case next to each so that a class that refuses too much shows too.
 */
export interface ParityRequest {
  group: string;
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

interface Ids {
  key: string;
  reportId: string;
  userId: string;
  dealershipId: string;
}

const INTEGERS = [
  'x',
  '',
  '1.5',
  '1e3',
  '-1',
  '1001',
  '2147483648',
  '99999999999999999999',
  'true',
  ' 5',
  '5 ',
  '0x10',
  '+5',
  '٣',
  '1_000',
  '10',
];
const UUIDS = [
  'not-a-uuid',
  '',
  '{7c9e6679-7425-40de-944b-e07fc1f90ae7}',
  '7C9E6679-7425-40DE-944B-E07FC1F90AE7',
  'urn:uuid:7c9e6679-7425-40de-944b-e07fc1f90ae7',
  '7c9e6679742540de944be07fc1f90ae7',
  '7c9e6679-7425-40de-944b-e07fc1f90ae',
];
const DATETIMES = [
  '2025-01-01',
  '2025-01-01T10:00:00Z',
  '2025-01-01 10:00',
  '2025-13-01',
  '2025-02-30',
  'yesterday',
  '1700000000',
  '1700000000000',
  '',
  '2025-01-01T25:00:00',
  '2025-01-01T10:00:00+25:00',
  '20250101',
];
const BOOLEANS = ['true', 'false', '1', '0', 'yes', 'no', 'on', 'off', 't', 'f', 'y', 'n', 'TRUE', 'maybe', '', '2'];
const JSONS = [
  '{"a":1}',
  '{bad',
  '',
  '[1,2]',
  '"text"',
  'null',
  '{"a":',
  // what Python's json accepts and a filter is not (issue 24)
  'NaN',
  'Infinity',
  '-Infinity',
  '1',
  'true',
  '[]',
  '{"folder_sold":{"status":NaN}}',
  '{"a":[Infinity,-Infinity]}',
  `${'{"a":'.repeat(150)}1${'}'.repeat(150)}`,
  `${'{"a":'.repeat(201)}1${'}'.repeat(201)}`,
  `{"a":${'['.repeat(120)}${']'.repeat(120)}}`,
  `{"a":${'['.repeat(300)}${']'.repeat(300)}}`,
  // (FastAPI accepts 201 to 253 nested arrays and refuses 254 at the 202nd: not compared)
];
const EMAILS = [
  'client@example.com',
  'bad',
  '',
  'a b@example.com',
  'Jean <a@example.com>',
  '<a@example.com>',
  `${'a'.repeat(65)}@example.com`,
  'a@example.invalid',
  'a@localhost',
  'a@b',
  'é@exemple.fr',
  'a@exemple.fr.',
  'a..b@example.com',
  // EmailStr's normalization and its refusals of characters PostgreSQL could not store either
  'Info@BÜCHER.de',
  'a@xn--bcher-kva.ch',
  ' a@example.com\t',
  'a\u0000b@example.com',
  '"Na\u0000me" <ab@example.com>',
  'a@[1.2.3.4]',
  '"a b"@example.com',
];

export function buildCorpus(ids: Ids): ParityRequest[] {
  const key = { 'x-api-key': ids.key };
  const json = { ...key, 'content-type': 'application/json' };
  const requests: ParityRequest[] = [];
  const get = (group: string, path: string, headers: Record<string, string> = key) =>
    requests.push({ group, name: `GET ${path}`, method: 'GET', path, headers });
  const lead = (group: string, name: string, body: string | Uint8Array, headers: Record<string, string> = json) =>
    requests.push({ group, name, method: 'POST', path: '/public/reports/create-lead', headers, body });
  const q = encodeURIComponent;

  for (const list of ['/public/reports/', '/public/users/', '/public/dealerships/']) {
    for (const value of INTEGERS) {
      get('integers', `${list}?limit=${q(value)}`);
      get('integers', `${list}?offset=${q(value)}`);
    }
    get('integers', `${list}?limit=1&limit=2`);
    get('order_by', `${list}?order_by=nope`);
    get('order_by', `${list}?order_by=`);
    get('order_by', `${list}?order_by`);
    get('order_by', `${list}?order_by=,`);
    get('order_by', `${list}?order_by=${q(' created_at')}`);
    get('order_by', `${list}?order_by=-created_at`);
    get('several at once', `${list}?order_by=foo&limit=x&offset=-1`);
  }
  for (const value of UUIDS) {
    get('uuids', `/public/reports/?dealership_id=${q(value)}`);
    get('uuids', `/public/reports/${q(value)}`);
    get('uuids', `/public/users/${q(value)}`);
  }
  for (const value of DATETIMES) {
    get('date-times', `/public/reports/?created_at__gte=${q(value)}`);
    get('date-times', `/public/users/?created_at__lte=${q(value)}`);
  }
  for (const value of BOOLEANS) get('booleans', `/public/reports/?valid=${q(value)}`);
  for (const value of ['remote', 'REMOTE', 'spaceship', '']) get('enums', `/public/reports/?type=${q(value)}`);
  for (const value of JSONS) get('json query values', `/public/reports/?data__contains=${q(value)}`);
  for (const value of ['[1,2]', 'NaN', '{"folder_sold":{"status":true}}']) {
    get('json query values', `/public/reports/?state__contains=${q(value)}`);
    get('json query values', `/public/reports/?state__not_contains=${q(value)}`);
  }
  // deepObject brackets: the filter here (FastAPI ignores the unknown names); success bodies are not compared
  get('json query values', `/public/reports/?${q('state__contains[folder_sold][status]')}=true`);
  get('json query values', `/public/reports/?limit=x&data__contains=${q('[1]')}&state__contains=NaN`);
  for (const [name, max] of [
    ['vin', 64],
    ['dealership_name', 200],
    ['search', 500],
  ] as const) {
    get('string lengths', `/public/reports/?${name}=${'a'.repeat(max)}`);
    get('string lengths', `/public/reports/?${name}=${'a'.repeat(max + 1)}`);
  }
  get('search terms', `/public/reports/?search=${q(Array.from({ length: 11 }, (_, i) => `t${i}`).join(' '))}`);
  get(
    'several at once',
    `/public/reports/?limit=x&valid=maybe&type=spaceship&dealership_id=nope&created_at__gte=never&vin=${'v'.repeat(65)}`,
  );

  // Found and not found, by id.
  get('ids', `/public/reports/${ids.reportId}`);
  get('ids', `/public/reports/00000000-0000-4000-8000-000000000000`);
  get('ids', `/public/users/${ids.userId}`);
  get('ids', `/public/users/00000000-0000-4000-8000-000000000000`);

  // Keys: missing, empty, wrong; before validation.
  const keyHeaders: Record<string, string>[] = [
    {},
    { 'x-api-key': '' },
    { 'x-api-key': 'nope' },
    { 'x-api-key': `vr_live_${'A'.repeat(32)}` },
  ];
  for (const headers of keyHeaders) {
    get('keys', '/public/reports/', headers);
    get('keys', '/public/reports/?limit=x', headers);
    requests.push({
      group: 'keys',
      name: `POST create-lead with ${JSON.stringify(headers)}`,
      method: 'POST',
      path: '/public/reports/create-lead',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{}',
    });
  }

  // Paths and methods.
  for (const path of [
    '/public/reports',
    '/public/users?limit=2',
    '/public/reports/a%2Fb',
    '/public/%72eports/',
    '/%70ublic/reports/',
    '/%70ublic/reports',
    '/%2Fpublic/reports/',
    '/public/reports//',
    '/public/nope',
    '/public/reports/create-lead/',
    '/public/dealerships',
  ]) {
    get('paths', path);
  }
  for (const method of ['PUT', 'DELETE', 'PATCH', 'POST'] as const) {
    requests.push({
      group: 'methods',
      name: `${method} /public/reports/`,
      method,
      path: '/public/reports/',
      headers: json,
      body: method === 'POST' ? '{}' : undefined,
    });
  }
  requests.push({ group: 'methods', name: 'GET create-lead', method: 'GET', path: '/public/reports/create-lead', headers: key });

  // Bodies.
  const ok = { dealership: ids.dealershipId, name: 'Parity Client' };
  lead('bodies', 'valid lead', JSON.stringify(ok));
  lead('bodies', 'unknown dealership', JSON.stringify({ ...ok, dealership: '00000000-0000-4000-8000-000000000000' }));
  lead('bodies', 'empty object', '{}');
  lead('bodies', 'empty body', '');
  lead('bodies', 'whitespace body', '   ');
  lead('bodies', 'invalid JSON', '{"dealership": ');
  lead('bodies', 'JSON array', '[1]');
  lead('bodies', 'JSON string', '"x"');
  lead('bodies', 'null', 'null');
  lead('bodies', 'wrong types', JSON.stringify({ dealership: 5, name: 7, lang: 'xx', sendEmail: 'maybe', sendPhone: 2 }));
  lead('bodies', 'bad dealership and e-mail', JSON.stringify({ email: 'bad' }));
  lead('bodies', 'long name and folder', JSON.stringify({ ...ok, name: 'n'.repeat(101), folder_name: 'f'.repeat(101) }));
  lead('bodies', 'unknown placeholder', JSON.stringify({ ...ok, custom_sms: 'Hello {nom}' }));
  lead('bodies', 'long custom_sms', JSON.stringify({ ...ok, custom_sms: 's'.repeat(481) }));
  lead('bodies', 'extra field', JSON.stringify({ ...ok, colour: 'red' }));
  // A cross-field rule (sendEmail needs email) runs like a model validator: after every field passed,
  // so beside a field error only the field error is reported (the reference has no such rule).
  lead('bodies', 'sendEmail without email beside a field error', JSON.stringify({ ...ok, sendEmail: true, name: 'n'.repeat(101) }));
  lead('bodies', 'errors in declaration order', JSON.stringify({ custom_sms: 7, sendPhone: 'x', name: 5, dealership: 'x', lang: 'xx' }));
  lead('bodies', 'booleans as strings', JSON.stringify({ ...ok, sendEmail: 'false', sendPhone: 'no' }));
  for (const email of EMAILS) lead('e-mail', `email ${JSON.stringify(email)}`, JSON.stringify({ ...ok, email }));
  lead('idempotency key', 'Idempotency-Key too long', JSON.stringify(ok), { ...json, 'idempotency-key': 'k'.repeat(256) });
  lead('idempotency key', 'Idempotency-Key with a space', JSON.stringify(ok), { ...json, 'idempotency-key': 'a b' });

  // Content types and encodings.
  for (const contentType of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/json; charset=utf-8',
    'application/vnd.api+json',
    'APPLICATION/JSON',
  ]) {
    lead('content types', `content-type ${contentType}`, JSON.stringify(ok), { ...key, 'content-type': contentType });
  }
  lead('content types', 'no content-type', JSON.stringify(ok), key);
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(JSON.stringify(ok), 'utf16le')]);
  lead('encodings', 'UTF-16 LE with BOM', new Uint8Array(utf16));
  lead('encodings', 'invalid UTF-8', new Uint8Array(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])));
  lead('encodings', 'UTF-8 BOM', new Uint8Array(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(ok))])));
  // Text PostgreSQL cannot store. (A lone surrogate, escaped or as bytes, is not sent: FastAPI fails
  // to encode its own 422 echoing it, a 500 with the connection closed.)
  lead('unstorable text', 'NUL in name', JSON.stringify({ ...ok, name: 'a\u0000b' }));
  return requests;
}
