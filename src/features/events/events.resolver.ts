import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { Statements } from '../../shared/schema/statements';
import { requireOrganization, type RequestContext } from '../context';
import { EventPageType, EventsArgs } from './event.types';
import { readEvents } from './events.service';

@Resolver()
export class EventsResolver {
  @Statements(1)
  @Query(() => EventPageType, {
    description: "The organization's change feed in commit order: pass `next` back as `after` to read on (docs/events.md)",
  })
  events(@Args(() => EventsArgs) args: EventsArgs, @Ctx() context: RequestContext): Promise<EventPageType> {
    // The primary, never a replica: the feed's horizon is the primary's oldest running transaction.
    return readEvents(context.db.prisma, requireOrganization(context), args);
  }
}
