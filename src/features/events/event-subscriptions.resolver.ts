/**
 * The change feed pushed over GraphQL subscriptions (graphql-ws, docs/events.md): `events`, the
 * feed read forward from a cursor (replay, then live), and `reportChanged`, the report events from
 * now on. Each pushed event carries its cursor: `events(after:)` resumes from it.
 */
import { Args, ArgsType, Ctx, Field, Resolver, Root, Subscription, type SubscribeResolverData } from 'type-graphql';
import { invalidValue } from '../../shared/errors';
import { Rules } from '../../shared/schema/input-rules';
import { Statements } from '../../shared/schema/statements';
import { requireOrganization, type RequestContext } from '../context';
import { followEvents } from './event-stream';
import { FeedEventType } from './event.types';
import { EVENT_TYPES } from './event-types';
import { parseEventTypes, type FeedEvent } from './events.service';

const REPORT_EVENT_TYPES = EVENT_TYPES.filter((type) => type.startsWith('report.'));

@ArgsType()
export class EventsSubscriptionArgs {
  @Field(() => String, {
    nullable: true,
    description:
      "a cursor (an event's `cursor`, or the feed's `next`): replays what follows it, then goes on live; none: from the oldest retained event",
  })
  @Rules({ kind: 'length', max: 64 })
  after?: string | null;

  @Field(() => [String], { nullable: true, description: 'event types to push (default: all)' })
  types?: string[] | null;
}

@ArgsType()
export class ReportChangedArgs {
  @Field(() => [String], { nullable: true, description: 'report event types to push (default: every report.* type)' })
  types?: string[] | null;
}

/** The checked filter of a subscription's `types` list (the feed's own check, as one list). */
function typesOf(types: string[] | null | undefined, allowed: readonly string[]): string[] | undefined {
  if (!types || types.length === 0) return undefined;
  const names = parseEventTypes(types.join(','));
  const refused = names?.filter((name) => !allowed.includes(name)) ?? [];
  if (refused.length > 0) {
    throw invalidValue(
      'types',
      types,
      `not a report event type: ${refused.join(', ')}`,
      `expected report event types among: ${allowed.join(', ')}`,
    );
  }
  return names;
}

function streamOf(context: RequestContext, after: string | undefined, types: string[] | undefined): AsyncIterableIterator<FeedEvent> {
  const organizationId = requireOrganization(context);
  if (!context.feedFollowing) throw new Error('subscriptions are served over graphql-ws only');
  const { wakeups, options } = context.feedFollowing;
  // The primary, never a replica: the feed's horizon is the primary's oldest running transaction.
  return followEvents(context.db.prisma, organizationId, { after, types }, wakeups, options);
}

@Resolver()
export class EventSubscriptionsResolver {
  @Statements(1)
  @Subscription(() => FeedEventType, {
    name: 'events',
    description: "The organization's change feed from `after` (replayed), then live, in commit order, never skipping or repeating an event",
    subscribe: ({ args, context }: SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>) => {
      const { after, types } = args as EventsSubscriptionArgs;
      return streamOf(context, after || undefined, typesOf(types, EVENT_TYPES));
    },
  })
  eventsSubscription(@Root() event: FeedEvent, @Args(() => EventsSubscriptionArgs) _args: EventsSubscriptionArgs): FeedEvent {
    return event;
  }

  @Statements(1)
  @Subscription(() => FeedEventType, {
    description: "Each new event about the organization's reports (from when the subscription starts), filtered by type",
    subscribe: ({ args, context }: SubscribeResolverData<unknown, Record<string, unknown>, RequestContext>) =>
      streamOf(context, undefined, typesOf((args as ReportChangedArgs).types, REPORT_EVENT_TYPES) ?? REPORT_EVENT_TYPES),
  })
  reportChanged(
    @Root() event: FeedEvent,
    @Args(() => ReportChangedArgs) _args: ReportChangedArgs,
    @Ctx() _context: RequestContext,
  ): FeedEvent {
    return event;
  }
}
