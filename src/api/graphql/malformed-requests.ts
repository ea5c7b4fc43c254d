/**
 * Malformed GraphQL requests answered as GraphQL errors ({"errors": [{message, extensions:
 * {code}}]}) with a 4xx, where they used to surface as a 500 or as the REST error body. Found by
 * test/fuzz.
 */
import type { ErrorRequestHandler } from 'express';
import { Kind, visit, type DocumentNode } from 'graphql';

/**
 * Fragment spreads that graphql-depth-limit cannot follow: a spread of an unknown fragment makes
 * it throw, a cycle of fragments makes it recurse forever. graphql-js's own rules
 * (KnownFragmentNames, NoFragmentCycles) report both; the depth check has nothing to add then.
 */
export function hasBrokenFragments(document: DocumentNode): boolean {
  const spreadsOf = new Map<string, string[]>();
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const spreads: string[] = [];
    visit(definition, { FragmentSpread: (node) => void spreads.push(node.name.value) });
    spreadsOf.set(definition.name.value, spreads);
  }
  let unknown = false;
  visit(document, {
    FragmentSpread: (node) => {
      if (!spreadsOf.has(node.name.value)) unknown = true;
    },
  });
  if (unknown) return true;
  // A cycle: depth-first over the spread graph, iteratively (documents may hold many fragments).
  const state = new Map<string, 'visiting' | 'done'>();
  for (const start of spreadsOf.keys()) {
    if (state.has(start)) continue;
    const stack: { name: string; next: number }[] = [{ name: start, next: 0 }];
    state.set(start, 'visiting');
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const spreads = spreadsOf.get(top.name)!;
      if (top.next === spreads.length) {
        state.set(top.name, 'done');
        stack.pop();
        continue;
      }
      const child = spreads[top.next++]!;
      if (state.get(child) === 'visiting') return true;
      if (!state.has(child)) {
        state.set(child, 'visiting');
        stack.push({ name: child, next: 0 });
      }
    }
  }
  return false;
}

/**
 * body-parser's refusals on /graphql (malformed JSON, too large, unsupported charset) in the
 * GraphQL error shape, with their own 4xx status; anything else goes on to the app's handler.
 */
export const graphqlBodyErrors: ErrorRequestHandler = (error, _req, res, next) => {
  const status = typeof error?.status === 'number' ? error.status : 500;
  if (status < 400 || status >= 500 || res.headersSent) return next(error);
  const message = status === 413 ? 'Request body too large' : error.expose && error.message ? String(error.message) : 'Bad Request';
  res.status(status).json({ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] });
};
