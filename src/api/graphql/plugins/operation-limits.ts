/**
 * Before anything executes: refuse an operation that costs too much (items, SQL statements, top
 * level fields), then charge the organization's rate-limit budget with the statements it may run.
 */
import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLSchema } from 'graphql';
import type { RequestContext } from '../../../features/context';
import { AppError, rateLimited } from '../../../shared/errors';
import { chargeRequest, type ApiServices } from '../../request-context';
import { requestError } from '../format-error';
import { MAX_QUERY_COST, MAX_ROOT_FIELDS, MAX_STATEMENTS_PER_OPERATION, cachedOperationCost } from '../operation-cost';

const tooComplex = (message: string, extra: Record<string, unknown>) => requestError(new AppError('QUERY_TOO_COMPLEX', message, { extra }));

export function operationLimitsPlugin(schema: GraphQLSchema, services: ApiServices): ApolloServerPlugin<RequestContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operation, contextValue, response }) {
          const cost = operation ? cachedOperationCost(schema, document, operation, request.variables ?? {}) : undefined;
          if (!cost) return;
          if (cost.rootFields > MAX_ROOT_FIELDS) {
            throw tooComplex(`The operation has ${cost.rootFields} top-level fields; at most ${MAX_ROOT_FIELDS}: split it`, {
              rootFields: cost.rootFields,
              maximumRootFields: MAX_ROOT_FIELDS,
            });
          }
          if (cost.cost > MAX_QUERY_COST) {
            throw tooComplex(`Query cost ${cost.cost} exceeds the maximum of ${MAX_QUERY_COST}: lower the limits or select fewer fields`, {
              cost: cost.cost,
              maximumCost: MAX_QUERY_COST,
            });
          }
          if (cost.statements > MAX_STATEMENTS_PER_OPERATION) {
            throw tooComplex(
              `The operation may run ${cost.statements} SQL statements; at most ${MAX_STATEMENTS_PER_OPERATION}: select fewer lists or relations`,
              { statements: cost.statements, maximumStatements: MAX_STATEMENTS_PER_OPERATION },
            );
          }
          if (!contextValue.principal) return;
          const decision = await chargeRequest(services, contextValue.principal, cost.statements);
          for (const [name, value] of Object.entries(decision.headers)) response.http.headers.set(name, value);
          if (!decision.allowed) throw requestError(rateLimited(decision.retryAfterSeconds));
        },
      };
    },
  };
}
