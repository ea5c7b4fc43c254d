/**
 * Requests no HTTP client library would send, written byte for byte on a socket (raw-http.ts
 * `sendSocket`): unencoded spaces, NUL, non-ASCII and control bytes in the request line and in
 * headers, bare LF line ends, conflicting framing headers, odd versions and request targets.
 * Node's parser refuses many of them before the app (the server's clientError handler answers
 * JSON); the rest reach the app with paths and values no client library would produce.
 */
import fc from 'fast-check';
import { REST_BASE_PATH, REST_ROUTES } from '../../src/api/rest/routes';
import type { FuzzContext } from './fuzz-context';
import { hostileString } from './hostile-values';
import type { FuzzRequest } from './rest-requests';

const rawBytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');

/** Usually the ordinary value, so that most requests carry one oddity rather than five. */
const mostly = <T>(usual: T, odd: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ weight: 5, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: odd });

export function socketRequest(context: FuzzContext): fc.Arbitrary<FuzzRequest> {
  const routePath = fc.constantFrom(
    ...REST_ROUTES.map((r) => `${REST_BASE_PATH}${r.path}`.replace(/:\w+/, context.ids.report[0]!)),
    '/healthz',
    '/nowhere',
  );
  const injected = fc.oneof(
    hostileString.map((s) => rawBytes(s.slice(0, 200))),
    fc.constantFrom(' ', '\t', '\u0000', '\r', '\n', '\u007f', 'é', '😀', '#frag', '?', '%', '\\..\\'),
  );
  const target = fc.oneof(
    fc.tuple(routePath, injected).map(([path, raw]) => `${path}?search=${raw}`),
    fc.tuple(routePath, injected).map(([path, raw]) => `${path}${raw}`),
    fc.constantFrom(
      '*',
      'http://127.0.0.1/public/dealerships/',
      '//public/dealerships/',
      'public/dealerships/',
      '/public/dealerships/?a=1#x',
      '',
    ),
  );
  const keyHeader = mostly(
    `x-api-key: ${context.keys.own}`,
    fc.oneof(
      fc.constantFrom(
        `x-api-key: ${context.keys.own}\u0000`,
        `x-api-key:${context.keys.own}`,
        `x-api-key : ${context.keys.own}`,
        `X-API-KEY: ${context.keys.own}`,
        `x-api-key: ${context.keys.own}\r\n x-continued`,
        `x-api-key: ${context.keys.own}\r\nx-api-key: ${context.keys.other}`,
        'x-api-key',
        'x-api-key: é',
      ),
      injected.map((raw) => `x-api-key: ${raw}`),
    ),
  );
  const framing = mostly(
    '',
    fc.constantFrom(
      'Content-Length: 0',
      'Content-Length: 5\r\nContent-Length: 6',
      'Transfer-Encoding: chunked\r\nContent-Length: 3',
      'Content-Length: -1',
      'Transfer-Encoding: gzip',
    ),
  );
  return fc
    .record({
      // (no CONNECT: without a 'connect' listener node drops the socket unanswered, by design)
      method: mostly('GET', fc.constantFrom('POST', 'G ET', 'get', 'PROPFIND')),
      target,
      version: mostly('HTTP/1.1', fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1 extra', '')),
      keyHeader,
      framing,
      lineEnd: mostly('\r\n', fc.constant('\n')),
    })
    .map(({ method, target, version, keyHeader, framing, lineEnd }): FuzzRequest => {
      const lines = [`${method} ${target} ${version}`.trimEnd(), 'Host: 127.0.0.1', keyHeader, framing, 'Connection: close'].filter(
        (line) => line !== '',
      );
      const path = target.startsWith('/') ? target : '/';
      return {
        interface: path.startsWith(REST_BASE_PATH) ? 'rest' : 'page',
        target: 'raw socket',
        method,
        path: target,
        raw: Buffer.from(`${lines.join(lineEnd)}${lineEnd}${lineEnd}`, 'latin1'),
      };
    });
}
