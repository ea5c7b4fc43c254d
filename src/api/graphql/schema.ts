import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { countAnswerValues } from './answer-size';
import { validateArgumentsBeforeResolving } from './argument-validation';
import { EventsResolver } from '../../features/events/events.resolver';
import { WebhooksResolver } from '../../features/webhooks/webhooks.resolver';
import { LeadsResolver } from '../../features/leads/leads.resolver';
import { ReportNotificationsResolver } from '../../features/notifications/notifications.resolver';
import { DealershipsResolver } from '../../features/dealerships/dealerships.resolver';
import { ReportCompactRelationsResolver, ReportRelationsResolver, ReportsResolver } from '../../features/reports/reports.resolver';
import { UsersResolver } from '../../features/users/users.resolver';

export const RESOLVERS = [
  ReportsResolver,
  ReportRelationsResolver,
  ReportCompactRelationsResolver,
  UsersResolver,
  DealershipsResolver,
  LeadsResolver,
  ReportNotificationsResolver,
  EventsResolver,
  WebhooksResolver,
] as const;

let cached: Promise<GraphQLSchema> | undefined;

/**
 * The one schema behind /graphql and /public (built once per process), every field that takes
 * arguments checking them first (argument-validation.ts), every list and JSON value counted
 * against the request's answer budget (answer-size.ts).
 */
export function buildAppSchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({ resolvers: [...RESOLVERS], validate: false, emitSchemaFile: false })
    .then(validateArgumentsBeforeResolving)
    .then(countAnswerValues);
  return cached;
}
