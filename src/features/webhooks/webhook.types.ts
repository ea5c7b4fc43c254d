import { ArgsType, Field, ID, Int, ObjectType } from 'type-graphql';
import { Rules } from '../../shared/schema/input-rules';
import { DateTimeISO, UUID } from '../../shared/schema/scalars';

@ObjectType('WebhookEndpoint', { simpleResolvers: true, description: 'A receiver of the change feed (docs/events.md, "Webhooks")' })
export class WebhookEndpointType {
  @Field(() => ID)
  id!: string;

  @Field(() => String)
  url!: string;

  @Field(() => [String], { description: 'event types delivered; empty: all' })
  types!: string[];

  @Field(() => String, { description: 'enabled or disabled' })
  status!: string;

  @Field(() => String, { description: 'the feed cursor after which delivery continues' })
  cursor!: string;

  @Field(() => Int, { description: 'failed attempts at the next event' })
  attempts!: number;

  @Field(() => DateTimeISO)
  next_attempt_at!: Date;

  @Field(() => String, { nullable: true, description: 'the last failure, with the start of the response' })
  last_error!: string | null;

  @Field(() => Int)
  delivered_count!: number;

  @Field(() => Int, { description: 'events given up after the last attempt, waiting for a redelivery' })
  dead_letters!: number;

  @Field(() => DateTimeISO)
  created_at!: Date;
}

@ObjectType('WebhookEndpointWithSecret', { simpleResolvers: true })
export class WebhookEndpointWithSecretType extends WebhookEndpointType {
  @Field(() => String, { description: 'the Standard Webhooks signing secret (whsec_…): shown only in this answer' })
  secret!: string;
}

@ArgsType()
export class CreateWebhookEndpointArgs {
  @Field(() => String, { description: 'http(s) URL of the receiver; in production its host must resolve to public addresses only' })
  @Rules({ kind: 'length', max: 2000 })
  url!: string;

  @Field(() => String, { nullable: true, description: 'comma-separated event types to deliver (default: all)' })
  @Rules({ kind: 'length', max: 1000 })
  types?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'replay the feed from this cursor (default: the feed horizon: what commits from now on and possibly events committed a moment before while an older transaction was running)',
  })
  @Rules({ kind: 'length', max: 64 })
  after?: string | null;
}

@ArgsType()
export class WebhookEndpointIdArgs {
  @Field(() => UUID)
  id!: string;
}

@ArgsType()
export class RedeliverWebhookArgs extends WebhookEndpointIdArgs {
  @Field(() => String, { nullable: true, description: 'deliver again from this cursor (default: from the oldest dead letter)' })
  @Rules({ kind: 'length', max: 64 })
  after?: string | null;
}
