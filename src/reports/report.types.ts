import { Field, ObjectType, Int } from 'type-graphql';
import { DateTimeISO, UUID } from '../graphql/scalars';
import { RealCosts, ReportData, ReportState } from './report-document.types';
import { ReportType } from './report-type.enum';

/**
 * The ids and columns both report shapes carry; relations (dealership, profile, …) are added by
 * the relations resolver for both types.
 */
@ObjectType()
abstract class ReportBase {
  @Field(() => UUID)
  token!: string;

  @Field(() => DateTimeISO)
  created_at!: Date;

  @Field(() => DateTimeISO)
  updated_at!: Date;

  @Field(() => UUID)
  organization_id!: string;

  @Field(() => UUID)
  entity_id!: string;

  @Field(() => UUID, { nullable: true })
  dealership_id!: string | null;

  @Field(() => UUID, { nullable: true, description: 'the creator (a user); null for leads' })
  profile_id!: string | null;

  @Field(() => UUID, { nullable: true, description: 'the client of a lead' })
  contact_id!: string | null;

  @Field(() => UUID, { nullable: true, description: 'the original report of a counter-inspection' })
  counter_id!: string | null;

  @Field(() => ReportType)
  type!: ReportType;

  @Field(() => Boolean)
  valid!: boolean;
}

@ObjectType('ReportCompactVehicle')
export class ReportCompactVehicle {
  @Field(() => String, { nullable: true })
  vin!: string | null;

  @Field(() => String, { nullable: true })
  license_number!: string | null;
}

@ObjectType('ReportCompactData')
export class ReportCompactData {
  @Field(() => ReportCompactVehicle)
  vehicle!: ReportCompactVehicle;
}

/** An item of the reports list (spec 2.2): never carries the whole document. */
@ObjectType('ReportCompact', { description: 'A report as listed (spec 2.2)' })
export class ReportCompact extends ReportBase {
  @Field(() => ReportCompactData)
  data!: ReportCompactData;
}

/** The full report (spec 2.3). */
@ObjectType('Report', { description: 'A full report (spec 2.3)' })
export class Report extends ReportBase {
  @Field(() => ReportData)
  data!: ReportData;

  @Field(() => ReportState)
  state!: ReportState;

  @Field(() => RealCosts, { nullable: true })
  real_costs!: RealCosts | null;
}

@ObjectType('ReportPage', { description: 'A page of reports (spec 2.1)' })
export class ReportPage {
  @Field(() => [ReportCompact])
  items!: ReportCompact[];

  @Field(() => Int, { nullable: true })
  limit!: number | null;

  @Field(() => Int, { nullable: true })
  offset!: number | null;

  @Field(() => Int, { nullable: true, description: 'matches for the filters, ignoring limit and offset' })
  total!: number | null;
}
