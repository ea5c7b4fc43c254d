/**
 * Authentication before any GraphQL work: a request without a valid key is answered 401 before
 * Apollo parses, validates or prices it, unless it only introspects the schema (kept open for
 * GraphiQL and code generators; parsed with a small token budget, and throttled per client
 * address like every keyless request). A valid key's organization goes on to the context.
 */
import express, { type RequestHandler } from 'express';
import { Kind, parse, type DocumentNode, type SelectionSetNode } from 'graphql';
import { recordOrganization, requestLogger } from '../../platform/http/access-log';
import { closeIfBodyUnread, declaresBodyOver, isBodyTooLarge, withWireLimit } from '../../platform/http/unread-bodies';
import { asAppError, badRequest, invalidApiKey, notAuthenticated, rateLimited } from '../../shared/errors';
import { refusalHeldFirst } from '../known-refusals';
import { KEYLESS_MAX_BODY_BYTES, MAX_BODY_BYTES } from '../limits';
import { authenticate, chargeWork, presentedKeyOf, spentBudgetRefusal, type ApiServices, type Authentication } from '../request-context';
import { refusalPoints } from './plugins/operation-limits';
import { selectionShapeErrors } from './selection-shape-rule';
import { sendGraphqlError, sendGraphqlValidationError } from './format-error';

/** An introspection query (GraphiQL's, graphql-js's) is under 250 tokens. */
export const KEYLESS_MAX_TOKENS = 1_000;

const INTROSPECTION_FIELDS = new Set(['__schema', '__type', '__typename']);

/**
 * The key first, before the body is read: a request without a valid key gets its body read only
 * up to KEYLESS_MAX_BODY_BYTES (an introspection query is 2 kB), so 2,000 connections sending
 * 95 kB bodies with wrong keys make the process hold nothing. `then` is the body reader and the
 * rest of the chain; the decision on a keyless request is made once its body is read (`admitKeyless`).
 */
export function graphqlAuthentication(services: ApiServices): RequestHandler {
  return async (req, res, next) => {
    let auth: Authentication;
    try {
      auth = await authenticate(services, presentedKeyOf(req), req.ip ?? '', refusalHeldFirst(res));
    } catch (error) {
      // The key lookup is the first statement: PostgreSQL being away is answered here, in GraphQL's shape.
      const failure = asAppError(error, requestLogger(req));
      if (!failure) return next(error);
      return sendGraphqlError(res, failure);
    }
    if (auth.status === 'throttled') {
      closeIfBodyUnread(req, res);
      res.set(auth.decision.headers);
      return sendGraphqlError(res, rateLimited(auth.decision.retryAfterSeconds));
    }
    res.locals.authentication = auth;
    if (auth.status === 'authenticated') {
      res.locals.principal = auth.principal;
      recordOrganization(res, auth.principal.organizationId);
      // A spent budget is answered before the body is read: whatever the request sends, it costs no parsing.
      const spent = await spentBudgetRefusal(services, auth.principal, refusalHeldFirst(res));
      if (spent) {
        closeIfBodyUnread(req, res);
        res.set(spent.headers);
        return spent.error && sendGraphqlError(res, spent.error);
      }
    }
    return next();
  };
}

/** The body reader for the key found: a keyless request's body is bounded much lower. */
export function graphqlBodyReader(): RequestHandler {
  const keyed = withWireLimit(express.json({ limit: MAX_BODY_BYTES }), MAX_BODY_BYTES);
  const keyless = withWireLimit(express.json({ limit: KEYLESS_MAX_BODY_BYTES }), KEYLESS_MAX_BODY_BYTES);
  return (req, res, next) => {
    const auth = res.locals.authentication as Authentication | undefined;
    if (auth?.status === 'authenticated') {
      // Not read on: the connection closes after the answer.
      const refuseTooLarge = () => {
        closeIfBodyUnread(req, res);
        return sendGraphqlError(res, badRequest('Request body too large'), 413);
      };
      if (declaresBodyOver(req, MAX_BODY_BYTES)) return refuseTooLarge();
      return keyed(req, res, (error?: unknown) => (isBodyTooLarge(error) ? refuseTooLarge() : next(error)));
    }
    // Too large to be an introspection query: the answer is the missing key's, and the rest of
    // the body is not read (the connection closes after the answer).
    const refuse = () => {
      closeIfBodyUnread(req, res);
      return sendGraphqlError(res, auth?.status === 'missing' ? notAuthenticated() : invalidApiKey());
    };
    if (declaresBodyOver(req, KEYLESS_MAX_BODY_BYTES)) return refuse();
    return keyless(req, res, (error?: unknown) => (isBodyTooLarge(error) ? refuse() : next(error)));
  };
}

/**
 * A request without a valid key goes on only when its document only introspects the schema. One
 * whose selection is too wide or deep once its fragments expand is refused here, from the document
 * parsed for this check, with the validation error Apollo would give: Apollo runs all of
 * graphql-js's rules over it first (the 1,528 characters of issue 22's N1 took ~8 ms of
 * validation, ~0.3 ms here), and keyless clients are many.
 */
export function admitKeyless(services: ApiServices): RequestHandler {
  return async (req, res, next) => {
    const auth = res.locals.authentication as Authentication | undefined;
    if (auth?.status === 'authenticated') return next();
    const started = performance.now();
    const text = documentTextOf(req.method === 'GET' ? req.query : req.body);
    const document = introspectionOnlyDocument(text);
    if (!document) {
      closeIfBodyUnread(req, res);
      return sendGraphqlError(res, auth?.status === 'missing' ? notAuthenticated() : invalidApiKey());
    }
    const [tooWide] = selectionShapeErrors(document);
    if (tooWide) {
      await chargeWork(
        services,
        { principal: null, clientAddress: req.ip ?? '' },
        refusalPoints(text, performance.now() - started, [tooWide]),
      );
      return sendGraphqlValidationError(res, tooWide);
    }
    res.locals.principal = null;
    return next();
  };
}

function documentTextOf(params: unknown): string | undefined {
  const query = (params as { query?: unknown } | undefined)?.query;
  return typeof query === 'string' ? query : undefined;
}

/** The document, parsed within the keyless token budget, when it only introspects the schema. */
function introspectionOnlyDocument(text: string | undefined): DocumentNode | undefined {
  if (text === undefined) return undefined;
  let document: DocumentNode;
  try {
    document = parse(text, { maxTokens: KEYLESS_MAX_TOKENS });
  } catch {
    return undefined;
  }
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  const introspects = operations.length > 0 && operations.every((operation) => onlyIntrospects(document, operation.selectionSet, 0));
  return introspects ? document : undefined;
}

function onlyIntrospects(document: DocumentNode, selectionSet: SelectionSetNode, depth: number): boolean {
  if (depth > 5) return false;
  return selectionSet.selections.every((selection) => {
    if (selection.kind === Kind.FIELD) return INTROSPECTION_FIELDS.has(selection.name.value);
    if (selection.kind === Kind.INLINE_FRAGMENT) return onlyIntrospects(document, selection.selectionSet, depth + 1);
    const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
    return fragment?.kind === Kind.FRAGMENT_DEFINITION && onlyIntrospects(document, fragment.selectionSet, depth + 1);
  });
}
