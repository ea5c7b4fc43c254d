import { Field, ObjectType } from 'type-graphql';
import { SqlTable } from '../../shared/schema/sql-source';
import { DateTimeISO, UUID } from '../../shared/schema/scalars';

/** The client of a lead report. */
@SqlTable('contacts')
@ObjectType('Contact', { simpleResolvers: true })
export class Contact {
  @Field(() => UUID)
  id!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => String, { nullable: true })
  phone!: string | null;

  @Field(() => DateTimeISO)
  created_at!: Date;
}
