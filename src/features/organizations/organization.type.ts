import { Field, ObjectType } from 'type-graphql';
import { SqlTable } from '../../shared/schema/sql-source';
import { DateTimeISO, UUID } from '../../shared/schema/scalars';

@SqlTable('organizations', { organization: 'id' })
@ObjectType('Organization', { simpleResolvers: true })
export class Organization {
  @Field(() => UUID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => DateTimeISO)
  created_at!: Date;

  @Field(() => DateTimeISO)
  updated_at!: Date;
}
