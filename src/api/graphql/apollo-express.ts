/**
 * Apollo Server behind an express route: what `@as-integrations/express5` does (Apollo's own
 * integration, whose code this follows), less two costs it adds to every request:
 *  - the query string is cut from the URL, where it ran Node's legacy `url.parse` (which parses the
 *    whole URL and escapes it again) to read `search`;
 *  - a complete answer is written by `res.end` (platform/http/text-body.ts), where express's
 *    `res.send` copied the string into a Buffer, measured it, and checked the request's freshness
 *    against an ETag this route never sets.
 * The answer is otherwise the same: Apollo's status and headers, its body (streamed when it is
 * incremental). Node drops the body of an answer to HEAD, as `res.send` did.
 */
import { HeaderMap, type ApolloServer, type BaseContext } from '@apollo/server';
import type { Request, RequestHandler, Response } from 'express';
import { endWithText } from '../../platform/http/text-body';

export function apolloExpressHandler<Context extends BaseContext>(
  server: ApolloServer<Context>,
  context: (request: { req: Request; res: Response }) => Promise<Context>,
): RequestHandler {
  server.assertStarted('apolloExpressHandler()');
  return async (req, res) => {
    const headers = new HeaderMap();
    for (const name in req.headers) {
      const value = req.headers[name];
      if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const queryAt = req.url.indexOf('?');
    const answer = await server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method: req.method.toUpperCase(),
        headers,
        search: queryAt < 0 ? '' : req.url.slice(queryAt),
        // express's body readers ran before (authentication-gate.ts): parsed JSON, or undefined for a GET.
        body: req.body as unknown,
      },
      context: () => context({ req, res }),
    });
    for (const [name, value] of answer.headers) res.setHeader(name, value);
    res.statusCode = answer.status ?? 200;
    if (answer.body.kind === 'complete') {
      endWithText(res, answer.body.string);
      return;
    }
    for await (const chunk of answer.body.asyncIterator) res.write(chunk);
    res.end();
  };
}
