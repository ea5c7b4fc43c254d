import { ArgsType, Extensions, Field, ObjectType } from 'type-graphql';
import { PageArgs, PageType } from '../../shared/pagination';
import { Rules } from '../../shared/schema/input-rules';
import { GRAPHQL_ONLY } from '../../shared/schema/rest-visibility';
import { SqlTable } from '../../shared/schema/sql-source';
import { DateTimeISO, JSON, UUID } from '../../shared/schema/scalars';

export const USER_ORDER_FIELDS = ['created_at', 'name', 'email', 'last_activity'] as const;

/** A user of the organization (spec 2.5). */
@SqlTable('users')
@ObjectType('User', { simpleResolvers: true })
export class User {
  @Field(() => UUID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => Boolean)
  is_active!: boolean;

  @Field(() => DateTimeISO)
  created_at!: Date;

  @Field(() => UUID)
  organization_id!: string;

  @Field(() => UUID)
  entity_id!: string;

  @Extensions(GRAPHQL_ONLY)
  @Field(() => UUID, { nullable: true })
  dealership_id!: string | null;

  @Field(() => String, { nullable: true })
  created_by!: string | null;

  @Field(() => String, { nullable: true })
  role!: string | null;

  @Field(() => String, { nullable: true })
  photo!: string | null;

  @Field(() => String, { nullable: true })
  phone!: string | null;

  @Field(() => String, { nullable: true })
  position!: string | null;

  @Field(() => String, { nullable: true })
  email!: string | null;

  @Field(() => DateTimeISO, { nullable: true })
  last_activity!: Date | null;

  @Field(() => JSON, { nullable: true })
  address!: unknown;
}

/** spec 2.1: the users list documents offset and total as always present. */
@ObjectType('UserPage', { simpleResolvers: true, description: 'A page of users (spec 2.1)' })
export class UserPage extends PageType(User, { required: ['offset', 'total'] }) {}

@ArgsType()
export class UsersArgs extends PageArgs {
  @Field(() => DateTimeISO, { nullable: true, description: 'created at or after (inclusive)' })
  created_at__gte?: Date | null;

  @Field(() => DateTimeISO, { nullable: true, description: 'created at or before (inclusive)' })
  created_at__lte?: Date | null;

  @Field(() => UUID, { nullable: true })
  organization_id?: string | null;

  @Field(() => UUID, { nullable: true })
  entity_id?: string | null;

  @Field(() => String, {
    nullable: true,
    description: `comma-separated fields, \`-\` for descending: ${USER_ORDER_FIELDS.join(', ')} (default -created_at)`,
  })
  @Rules({ kind: 'length', max: 200 }, { kind: 'orderBy', fields: USER_ORDER_FIELDS })
  order_by?: string | null;
}

@ArgsType()
export class UserArgs {
  @Field(() => UUID)
  user_id!: string;
}
