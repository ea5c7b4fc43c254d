import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema, type PubSub } from 'type-graphql';
import { countAnswerValues } from './answer-size';
import { validateArgumentsBeforeResolving } from './argument-validation';
import { EventSubscriptionsResolver } from '../../features/events/event-subscriptions.resolver';
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
  EventSubscriptionsResolver,
  WebhooksResolver,
] as const;

let cached: Promise<GraphQLSchema> | undefined;

/**
 * type-graphql wants a PubSub as soon as a schema has subscriptions, even when every one brings
 * its own `subscribe` (ours read the change feed, event-stream.ts): one that is never used.
 */
const NO_PUBSUB: PubSub = {
  publish() {
    throw new Error('subscriptions read the change feed: nothing is published');
  },
  subscribe() {
    throw new Error('subscriptions read the change feed: no topic to subscribe to');
  },
};

/**
 * The one schema behind /graphql and /public (built once per process): every field that takes
 * arguments checking them first (argument-validation.ts), every list and JSON value counted
 * against the request's answer budget (answer-size.ts).
 */
export function buildAppSchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({ resolvers: [...RESOLVERS], validate: false, emitSchemaFile: false, pubSub: NO_PUBSUB })
    .then(validateArgumentsBeforeResolving)
    .then(countAnswerValues);
  return cached;
}
