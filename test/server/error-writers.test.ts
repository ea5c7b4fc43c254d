/**
 * One writer of wire errors per interface: an error status or an error body is set only by the
 * modules named here. A new module that answers `res.status(404).json({ detail: ... })` itself
 * fails this test; it should throw or pass on an AppError (src/shared/errors.ts) instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SRC = path.join(__dirname, '../../src');

/** What setting an error status or body looks like, whichever API does it. */
const ERROR_WRITES: readonly { name: string; pattern: RegExp }[] = [
  { name: 'an error status', pattern: /\.(?:status|sendStatus)\(\s*[45]\d\d\b/ },
  { name: 'an error status', pattern: /\bstatusCode\s*=\s*[45]\d\d\b/ },
  { name: 'an error status', pattern: /\.http\.status\s*=\s*(?!\s*200\b)/ },
  // (a 307's body has the same shape, and is no error)
  { name: 'a FastAPI error body', pattern: /\{\s*detail\s*:(?!\s*(?:\{\s*type\b|'Temporary Redirect'))/ },
  { name: 'a raw HTTP answer', pattern: /HTTP\/1\.1 / },
  { name: 'a GraphQL error body', pattern: /\{\s*errors\s*:\s*\[/ },
];

/** The writers, each with the reason it may write. */
const ALLOWED: Readonly<Record<string, string>> = {
  'api/rest/rest-errors.ts': 'the REST error writer (also the platform refusals’ wording)',
  'api/graphql/format-error.ts': 'the GraphQL error writer',
  // GraphQL over HTTP: Apollo sets a request error's status from the error's own `http`
  // extension, built by format-error; these two adjust the status of an executed answer.
  'api/graphql/plugins/database-failure-status.ts': 'GraphQL: the database away makes an executed answer a 503',
  'api/graphql/plugins/legacy-json-status.ts': 'GraphQL: a request error answered 200 to clients that ask for application/json',
  // Transmits the writer's answer on a socket Node refused to parse (no express response exists).
  'platform/http/http-server.ts': 'transmits the application’s answer to a request Node could not parse',
  // An HTTP upgrade to another path than the subscriptions' one: no express request or response
  // exists for it, only the socket; it gets the REST writer's 404 body, as bytes.
  'api/graphql/subscriptions/subscription-server.ts': 'refuses a WebSocket upgrade outside /graphql on its raw socket',
  // Schemas of the error bodies in the OpenAPI document, not answers.
  'api/openapi/openapi-document.ts': 'describes the error bodies (OpenAPI)',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

describe('error writers', () => {
  const files = sourceFiles(SRC).map((file) => ({
    name: path.relative(SRC, file).split(path.sep).join('/'),
    text: readFileSync(file, 'utf8'),
  }));

  it('sees the writers it allows (the patterns still find what they look for)', () => {
    const writers = new Set(files.filter((f) => ERROR_WRITES.some((w) => w.pattern.test(f.text))).map((f) => f.name));
    for (const name of ['api/rest/rest-errors.ts', 'platform/http/http-server.ts']) expect(writers).toContain(name);
  });

  it('finds no error status or body written outside the allowed writers', () => {
    const offences = files.flatMap(({ name, text }) =>
      name in ALLOWED
        ? []
        : text
            .split('\n')
            .flatMap((line, index) =>
              ERROR_WRITES.filter((w) => w.pattern.test(line)).map((w) => `${name}:${index + 1}: ${w.name}: ${line.trim()}`),
            ),
    );
    expect(offences).toEqual([]);
  });
});
