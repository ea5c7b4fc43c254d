import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import { Rules } from '../../shared/schema/input-rules';
import { DateTimeISO, JSON, UUID } from '../../shared/schema/scalars';
import { DEFAULT_EVENT_PAGE, MAX_EVENT_PAGE } from './events.service';

@ObjectType('Event', { simpleResolvers: true, description: 'One change of a report or outcome of a notification (docs/events.md)' })
export class FeedEventType {
  @Field(() => String, { description: "this event's cursor: `after` it reads the events that follow" })
  cursor!: string;

  @Field(() => String, { description: 'the event number (a 64-bit integer, as text): unique, not in commit order' })
  position!: string;

  @Field(() => String, { description: 'report.created, report.updated, report.folder_sold, notification.delivered, ...' })
  type!: string;

  @Field(() => UUID, { description: 'the report token' })
  subject!: string;

  @Field(() => DateTimeISO, { description: 'when the writing transaction made the change' })
  occurred_at!: Date;

  @Field(() => JSON, { description: 'what changed; its shape depends on the type (docs/events.md)' })
  payload!: unknown;
}

@ObjectType('EventPage', { simpleResolvers: true })
export class EventPageType {
  @Field(() => [FeedEventType])
  items!: FeedEventType[];

  @Field(() => String, { description: 'the cursor to read on from (`after`); it may move on even when a page is empty' })
  next!: string;
}

@ArgsType()
export class EventsArgs {
  @Field(() => String, { nullable: true, description: 'a cursor from `next` or an event; none: the oldest retained event' })
  @Rules({ kind: 'length', max: 64 })
  after?: string | null;

  @Field(() => Int, { nullable: true, defaultValue: DEFAULT_EVENT_PAGE, description: `events per page, 1 to ${MAX_EVENT_PAGE}` })
  @Rules({ kind: 'range', ge: 1, le: MAX_EVENT_PAGE })
  limit?: number | null;

  @Field(() => String, { nullable: true, description: 'comma-separated event types to return (default: all)' })
  @Rules({ kind: 'length', max: 1000 })
  types?: string | null;
}
