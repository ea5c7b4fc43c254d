import { ArgsType, Field, Int } from 'type-graphql';
import { DateTimeISO, JSON, UUID } from '../../shared/schema/scalars';
import { ReportType } from './report-type.enum';

/**
 * The report filters of spec 4.1, with the meanings of decisions.md ("Report filters"). Shared by
 * `reports`, `Dealership.reports` and `User.reports`; argument names are the REST query names.
 */
@ArgsType()
export class ReportFilterArgs {
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
  vin?: string | null;

  @Field(() => String, { nullable: true, description: 'exact, case-insensitive, spaces and dashes ignored (AB-123-CD = ab123cd)' })
  license_number?: string | null;

  @Field(() => String, { nullable: true, description: 'data.vehicle.specifications.brand, exact, case-insensitive' })
  brand?: string | null;

  @Field(() => String, { nullable: true, description: 'data.metadata.version, exact, case-insensitive' })
  version?: string | null;

  @Field(() => String, { nullable: true, description: 'case-insensitive substring' })
  organization_name?: string | null;

  @Field(() => String, { nullable: true, description: 'case-insensitive substring' })
  dealership_name?: string | null;

  @Field(() => String, { nullable: true, description: 'case-insensitive substring' })
  entity_name?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'whitespace-separated terms; each must match (case-insensitive substring) the VIN, plate, brand, model, client name, e-mail, phone, folder name or dealership name',
  })
  search?: string | null;

  @Field(() => Boolean, { defaultValue: true, description: 'true: valid reports only; false: invalid ones only' })
  valid!: boolean;

  @Field(() => ReportType, { nullable: true })
  type?: ReportType | null;

  @Field(() => JSON, { nullable: true, description: 'JSON value that `data` must contain (PostgreSQL @>)' })
  data__contains?: unknown;

  @Field(() => JSON, {
    nullable: true,
    description: 'JSON value that `state` must contain (PostgreSQL @>), e.g. {"folder_sold":{"status":true}}',
  })
  state__contains?: unknown;

  @Field(() => JSON, { nullable: true, description: 'JSON value that `state` must NOT contain' })
  state__not_contains?: unknown;
}

@ArgsType()
export class ReportsArgs extends ReportFilterArgs {
  @Field(() => Int, { nullable: true, defaultValue: 100, description: 'page size, 0 to 1000' })
  limit?: number | null;

  @Field(() => Int, { defaultValue: 0, description: 'items to skip' })
  offset!: number;

  @Field(() => String, {
    nullable: true,
    description:
      'comma-separated fields, `-` for descending: created_at, updated_at, token, type, vin, license_number, brand, dealership_name (default -created_at)',
  })
  order_by?: string | null;
}
