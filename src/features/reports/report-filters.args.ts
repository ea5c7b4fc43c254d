import { ArgsType, Field } from 'type-graphql';
import { PageArgs } from '../../shared/pagination';
import { Rules } from '../../shared/schema/input-rules';
import { DateTimeISO, JSON, UUID } from '../../shared/schema/scalars';
import { REPORT_ORDER_FIELDS } from './report-list-columns';
import { ReportType } from './report-type.enum';

/** Identifiers (VIN, plate, brand, version) are short; names and free text a little longer. */
const IDENTIFIER = { kind: 'length', max: 64 } as const;
const NAME = { kind: 'length', max: 200 } as const;
/** A JSON filter's text: enough for any real containment test, small enough to stay cheap. */
const JSON_FILTER = [{ kind: 'jsonObject' }, { kind: 'jsonSize', maxLength: 4096 }] as const;
export const SEARCH_LIMITS = { maxTerms: 10, maxTermLength: 100, maxLength: 500 } as const;

/**
 * The report filters of spec 4.1, with the meanings of api-behaviour.md ("Report filters"). Shared by
 * `reports`, `Dealership.reports` and `User.reports`; argument names are the REST query names.
 */
@ArgsType()
export class ReportFilterArgs extends PageArgs {
  @Field(() => DateTimeISO, { nullable: true, description: 'created at or after (inclusive)' })
  created_at__gte?: Date | null;

  @Field(() => DateTimeISO, { nullable: true, description: 'created at or before (inclusive)' })
  created_at__lte?: Date | null;

  @Field(() => DateTimeISO, { nullable: true, description: 'updated at or after (inclusive)' })
  updated_at__gte?: Date | null;

  @Field(() => DateTimeISO, { nullable: true, description: 'updated at or before (inclusive)' })
  updated_at__lte?: Date | null;

  @Field(() => UUID, { nullable: true })
  organization_id?: string | null;

  @Field(() => UUID, { nullable: true })
  dealership_id?: string | null;

  @Field(() => UUID, { nullable: true })
  entity_id?: string | null;

  @Field(() => UUID, { nullable: true, description: 'the report creator (a user)' })
  profile_id?: string | null;

  @Field(() => UUID, { nullable: true })
  contact_id?: string | null;

  @Field(() => UUID, { nullable: true, description: 'the original report of a counter-inspection' })
  counter_id?: string | null;

  @Field(() => UUID, { nullable: true })
  token?: string | null;

  @Field(() => String, { nullable: true, description: 'exact, case-insensitive, spaces and dashes ignored' })
  @Rules(IDENTIFIER)
  vin?: string | null;

  @Field(() => String, { nullable: true, description: 'exact, case-insensitive, spaces and dashes ignored (AB-123-CD = ab123cd)' })
  @Rules(IDENTIFIER)
  license_number?: string | null;

  @Field(() => String, { nullable: true, description: 'data.vehicle.specifications.brand, exact, case-insensitive' })
  @Rules(IDENTIFIER)
  brand?: string | null;

  @Field(() => String, { nullable: true, description: 'data.metadata.version, exact, case-insensitive' })
  @Rules(IDENTIFIER)
  version?: string | null;

  @Field(() => String, { nullable: true, description: 'case-insensitive substring' })
  @Rules(NAME)
  organization_name?: string | null;

  @Field(() => String, { nullable: true, description: 'case-insensitive substring' })
  @Rules(NAME)
  dealership_name?: string | null;

  @Field(() => String, { nullable: true, description: 'case-insensitive substring' })
  @Rules(NAME)
  entity_name?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'whitespace-separated terms; each must match (case-insensitive substring) the VIN, plate, brand, model, client name, ' +
      'e-mail, phone, folder name or dealership name',
  })
  @Rules(
    { kind: 'length', max: SEARCH_LIMITS.maxLength },
    { kind: 'searchTerms', maxTerms: SEARCH_LIMITS.maxTerms, maxTermLength: SEARCH_LIMITS.maxTermLength },
  )
  search?: string | null;

  @Field(() => Boolean, { defaultValue: true, description: 'true: valid reports only; false: invalid ones only' })
  valid!: boolean;

  @Field(() => ReportType, { nullable: true })
  type?: ReportType | null;

  @Field(() => JSON, { nullable: true, description: 'JSON value that `data` must contain (PostgreSQL @>)' })
  @Rules(...JSON_FILTER)
  data__contains?: unknown;

  @Field(() => JSON, {
    nullable: true,
    description: 'JSON value that `state` must contain (PostgreSQL @>), e.g. {"folder_sold":{"status":true}}',
  })
  @Rules(...JSON_FILTER)
  state__contains?: unknown;

  @Field(() => JSON, { nullable: true, description: 'JSON value that `state` must NOT contain' })
  @Rules(...JSON_FILTER)
  state__not_contains?: unknown;
}

@ArgsType()
export class ReportsArgs extends ReportFilterArgs {
  @Field(() => String, {
    nullable: true,
    description: `comma-separated fields, \`-\` for descending: ${REPORT_ORDER_FIELDS.join(', ')} (default -created_at)`,
  })
  @Rules({ kind: 'length', max: 200 }, { kind: 'orderBy', fields: REPORT_ORDER_FIELDS })
  order_by?: string | null;
}
