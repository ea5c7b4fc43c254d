import { Field, Int, ObjectType, registerEnumType } from 'type-graphql';
import { NotificationChannel, NotificationStatus } from '../../generated/prisma/enums';
import { DateTimeISO, UUID } from '../../shared/schema/scalars';

// The enums come from the Prisma schema, as ReportType does.
registerEnumType(NotificationChannel, { name: 'NotificationChannel', description: 'how a lead notification is sent' });
registerEnumType(NotificationStatus, {
  name: 'NotificationStatus',
  description:
    'pending: queued or waiting for a retry; sent: accepted by the SMTP server or SMS provider; failed: gave up after the last attempt',
});

/** A lead notification (one outbox row) as a client sees it: the recipient masked. */
@ObjectType('Notification', { simpleResolvers: true, description: 'An e-mail or SMS sent (or to be sent) for a lead' })
export class Notification {
  @Field(() => UUID)
  id!: string;

  @Field(() => NotificationChannel)
  channel!: NotificationChannel;

  @Field(() => String, { description: 'masked, e.g. j***@example.com or +3361****78' })
  recipient!: string;

  @Field(() => NotificationStatus)
  status!: NotificationStatus;

  @Field(() => Int, { description: 'delivery attempts made so far, the successful one included' })
  attempts!: number;

  @Field(() => String, {
    nullable: true,
    description: "why the latest attempt failed, in general terms (the provider's own answer is kept for the operator)",
  })
  last_error!: string | null;

  @Field(() => DateTimeISO, { nullable: true })
  sent_at!: Date | null;

  @Field(() => DateTimeISO)
  created_at!: Date;
}
