/**
 * Before anything executes: refuse an operation that costs too much (values it may return, SQL
 * statements, top-level fields; less without a key), then charge the organization's rate-limit
 * budget with the statements it may run and the introspection answer it builds. Documents that
 * fail to parse, validate or fit are charged too, by the work of refusing them (the milliseconds
 * validation and pricing took), their length or the selection they asked for (fields after
 * fragments expand), whichever is more: refusing them costs CPU.
 */
import type { ApolloServerPlugin, GraphQLRequestContext } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../../features/context';
import { AppError, rateLimited } from '../../../shared/errors';
import { EventLoopTurns } from '../../../platform/event-loop-turns';
import { chargeRequest, chargeWork, type ApiServices } from '../../request-context';
import { requestError } from '../format-error';
import {
  INTROSPECTION_VALUES_PER_POINT,
  KEYLESS_MAX_COST,
  MAX_QUERY_COST,
  MAX_ROOT_FIELDS,
  MAX_STATEMENTS_PER_OPERATION,
  cachedOperationCost,
  type OperationCost,
} from '../operation-cost';

const tooComplex = (message: string, extra: Record<string, unknown>) => requestError(new AppError('QUERY_TOO_COMPLEX', message, { extra }));

/** Characters of a refused document per point charged: a 30 kB document that fails validation costs ~15. */
export const REFUSED_CHARACTERS_PER_POINT = 2_000;

/**
 * Milliseconds of refusing work per point charged. The keyless introspection document of issue 22
 * (N1) is 1,528 characters, 1 point by length, but its validation takes ~9 ms: 60 of them a minute
 * per address (the keyless budget) held another tenant's requests back by 50 ms.
 */
export const REFUSED_MS_PER_POINT = 1;

/**
 * Fields a document refused for its expanded size asked for, per point charged: N1's 47,526 are 48
 * points, most of a keyless address's minute (60). Refusing it is cheap (~0.3 ms), but the whole
 * request costs ~1.3 ms of server CPU, and at 2 points a refusal 4 addresses sent ~110 of them in
 * the first 0.3 s of bench:abuse scenario 9, while another tenant's requests waited behind them.
 */
export const REFUSED_FIELDS_PER_POINT = 1_000;

/** The most a refusal is charged for what it asked for (100,000 fields), however much more that was. */
export const MAX_ASKED_POINTS = 100;

/**
 * What refusing a document is charged: its length, the work of refusing it, or the size of the
 * selection it asked for (`expandedFields` of a refusal), whichever is more.
 */
export const refusalPoints = (
  source: string | undefined,
  workMs: number,
  errors: readonly { extensions?: Record<string, unknown> }[] = [],
) => {
  const asked = Math.max(0, ...errors.map((error) => Number(error.extensions?.expandedFields) || 0));
  return Math.max(
    (source?.length ?? 0) / REFUSED_CHARACTERS_PER_POINT,
    workMs / REFUSED_MS_PER_POINT,
    Math.min(asked / REFUSED_FIELDS_PER_POINT, MAX_ASKED_POINTS),
  );
};

/** Milliseconds spent on a request's document so far (validation, pricing): what a refusal of it cost. */
const documentWork = new WeakMap<object, number>();
const addWork = (requestContext: object, ms: number) => documentWork.set(requestContext, (documentWork.get(requestContext) ?? 0) + ms);

/** Why an operation is refused before it runs, or undefined. */
export function refusal(cost: OperationCost, keyless: boolean): Error | undefined {
  if (cost.rootFields > MAX_ROOT_FIELDS) {
    return tooComplex(`The operation has ${cost.rootFields} top-level fields; at most ${MAX_ROOT_FIELDS}: split it`, {
      rootFields: cost.rootFields,
      maximumRootFields: MAX_ROOT_FIELDS,
    });
  }
  const maximumCost = keyless ? KEYLESS_MAX_COST : MAX_QUERY_COST;
  if (cost.cost > maximumCost) {
    const counted = Number.isFinite(cost.cost) ? `Query cost ${cost.cost}` : 'Query cost';
    return tooComplex(
      `${counted} exceeds the maximum of ${maximumCost}${keyless ? ' without an API key' : ''}: lower the limits or select fewer fields`,
      {
        ...(Number.isFinite(cost.cost) ? { cost: cost.cost } : {}),
        maximumCost,
      },
    );
  }
  if (cost.statements > MAX_STATEMENTS_PER_OPERATION) {
    return tooComplex(
      `The operation may run ${cost.statements} SQL statements; at most ${MAX_STATEMENTS_PER_OPERATION}: select fewer lists or relations`,
      { statements: cost.statements, maximumStatements: MAX_STATEMENTS_PER_OPERATION },
    );
  }
  return undefined;
}

/**
 * Documents longer than this take a turn on the event loop (platform/event-loop-turns.ts) before
 * they are parsed and before they are validated: a whole report's document is ~4,000 characters,
 * an ordinary page's a few hundred.
 */
export const LARGE_DOCUMENT_CHARACTERS = 2_000;

/** Points of the organization's budget an operation is charged: its statements, and its introspection answer's size. */
export const operationPoints = (cost: OperationCost) => cost.statements + cost.introspection / INTROSPECTION_VALUES_PER_POINT;

export function operationLimitsPlugin(schema: GraphQLSchema, services: ApiServices): ApolloServerPlugin<RequestContext> {
  const turns = new EventLoopTurns();
  const noTurn = () => undefined;
  const takeTurn = async (source: string | undefined) => ((source?.length ?? 0) > LARGE_DOCUMENT_CHARACTERS ? turns.take() : noTurn);
  const chargeRefused = async (
    requestContext: GraphQLRequestContext<RequestContext>,
    errors?: readonly (Error & { extensions?: Record<string, unknown> })[],
  ) => {
    const { contextValue, source } = requestContext;
    await chargeWork(services, contextValue, refusalPoints(source, documentWork.get(requestContext) ?? 0, errors));
  };
  return {
    async requestDidStart() {
      return {
        async parsingDidStart(requestContext) {
          const endTurn = await takeTurn(requestContext.source);
          // Parsing is not timed: it is linear in the text, which the length charge prices (10,000
          // tokens, ~50 kB, parse in ~3 ms and are charged ~25 points), and the clock would also
          // run while Apollo awaits its plugins' hooks, when other requests' work may run: on a
          // loaded machine, a 10-character document that failed to parse was charged 3 points.
          return async (error) => {
            endTurn();
            if (error) await chargeRefused(requestContext);
          };
        },
        async validationDidStart(requestContext) {
          const endTurn = await takeTurn(requestContext.source);
          const started = performance.now();
          return async (errors) => {
            endTurn();
            addWork(requestContext, performance.now() - started);
            if (errors?.length) await chargeRefused(requestContext, errors);
          };
        },
        async didResolveOperation(requestContext) {
          const { request, document, operation, contextValue, response } = requestContext;
          const pricing = performance.now();
          const cost = operation ? cachedOperationCost(schema, document, operation, request.variables ?? {}) : undefined;
          addWork(requestContext, performance.now() - pricing);
          if (!cost) return;
          const refused = refusal(cost, !contextValue.principal);
          if (refused) {
            await chargeRefused(requestContext);
            throw refused;
          }
          const introspectionPoints = cost.introspection / INTROSPECTION_VALUES_PER_POINT;
          if (!contextValue.principal) {
            // The keyless request paid 1 point at authentication; a large introspection answer pays more.
            if (introspectionPoints > 1) await chargeWork(services, contextValue, introspectionPoints - 1);
            return;
          }
          const decision = await chargeRequest(services, contextValue.principal, operationPoints(cost));
          for (const [name, value] of Object.entries(decision.headers)) response.http.headers.set(name, value);
          if (!decision.allowed) throw requestError(rateLimited(decision.retryAfterSeconds));
        },
      };
    },
  };
}
