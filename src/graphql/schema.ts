import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { LeadsResolver } from '../leads/leads.resolver';
import { ReportNotificationsResolver } from '../notifications/notifications.resolver';
import { DealershipsResolver } from '../dealerships/dealerships.resolver';
import { ReportCompactRelationsResolver, ReportRelationsResolver, ReportsResolver } from '../reports/reports.resolver';
import { UsersResolver } from '../users/users.resolver';

export const RESOLVERS = [
  ReportsResolver,
  ReportRelationsResolver,
  ReportCompactRelationsResolver,
  UsersResolver,
  DealershipsResolver,
  LeadsResolver,
  ReportNotificationsResolver,
] as const;

let cached: Promise<GraphQLSchema> | undefined;

/** The one schema behind /graphql and /public (built once per process). */
export function buildAppSchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({
    resolvers: [...RESOLVERS],
    validate: false,
    emitSchemaFile: false,
  });
  return cached;
}
