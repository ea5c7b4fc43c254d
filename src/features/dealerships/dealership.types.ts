import { ArgsType, Field, Int, ObjectType } from 'type-graphql';
import { PageArgs, PageType } from '../../shared/pagination';
import { Rules } from '../../shared/schema/input-rules';
import { DateTimeISO, JSON, UUID } from '../../shared/schema/scalars';
import { SqlExpression, SqlTable } from '../../shared/schema/sql-source';

export const DEALERSHIP_ORDER_FIELDS = ['name', 'position', 'created_at'] as const;

/**
 * Active users of the dealership (api-behaviour.md), the organization's own only: a user of
 * another organization attached to it by bad data is not counted (test/tenancy).
 */
export const userCountSql = (dealership: string) =>
  `SELECT count(*)::int FROM users u WHERE u.dealership_id = ${dealership}.id AND u.is_active AND u.organization_id = ${dealership}.organization_id`;

/** A dealership (spec 2.4). */
@SqlTable('dealerships')
@ObjectType('Dealership', { simpleResolvers: true })
export class Dealership {
  @Field(() => UUID)
  id!: string;

  @Field(() => String)
  name!: string;

  @Field(() => DateTimeISO)
  created_at!: Date;

  @Field(() => DateTimeISO)
  updated_at!: Date;

  @Field(() => UUID)
  organization_id!: string;

  @Field(() => UUID)
  entity_id!: string;

  @Field(() => JSON, { nullable: true, description: 'postal address (shape not fixed by the spec)' })
  address!: unknown;

  @Field(() => String, { nullable: true })
  logo!: string | null;

  @Field(() => String, { nullable: true })
  illustration_img!: string | null;

  @Field(() => String, { nullable: true })
  more_info!: string | null;

  @Field(() => String, { nullable: true })
  siret!: string | null;

  @Field(() => Int)
  position!: number;

  @Field(() => Boolean)
  headquarter!: boolean;

  @Field(() => [String])
  brands!: string[];

  @SqlExpression(userCountSql)
  @Field(() => Int, { description: 'active users of the dealership' })
  user_count!: number;
}

@ObjectType('DealershipPage', { simpleResolvers: true, description: 'A page of dealerships (spec 2.1)' })
export class DealershipPage extends PageType(Dealership) {}

@ArgsType()
export class DealershipsArgs extends PageArgs {
  @Field(() => String, {
    nullable: true,
    description: `comma-separated fields, \`-\` for descending: ${DEALERSHIP_ORDER_FIELDS.join(', ')} (default position,name)`,
  })
  @Rules({ kind: 'length', max: 200 }, { kind: 'orderBy', fields: DEALERSHIP_ORDER_FIELDS })
  order_by?: string | null;
}
