import { Extensions, Field, ObjectType } from 'type-graphql';
import { PageType } from '../../shared/pagination';
import { GRAPHQL_ONLY } from '../../shared/schema/rest-visibility';
import { DateTimeISO, UUID } from '../../shared/schema/scalars';
import { SqlDocument, SqlSameRow, SqlTable } from '../../shared/schema/sql-source';
import { RealCosts, ReportData, ReportState } from './report-document.types';
import { ReportType } from './report-type.enum';

@ObjectType('ReportCompactVehicle', { simpleResolvers: true })
export class ReportCompactVehicle {
  @Field(() => String, { nullable: true })
  vin!: string | null;

  @Field(() => String, { nullable: true })
  license_number!: string | null;
}

@ObjectType('ReportCompactData', { simpleResolvers: true })
export class ReportCompactData {
  @SqlSameRow()
  @Field(() => ReportCompactVehicle)
  vehicle!: ReportCompactVehicle;
}

/**
 * An item of the reports list (spec 2.2): never carries the whole document. Fields in the spec's
 * order (REST bodies follow it); the GraphQL-only ones come last. `profile` is a relation (see
 * reports.resolver.ts).
 */
@SqlTable('reports', { key: 'token' })
@ObjectType('ReportCompact', { simpleResolvers: true, description: 'A report as listed (spec 2.2)' })
export class ReportCompact {
  @Field(() => UUID)
  token!: string;

  @Field(() => DateTimeISO)
  created_at!: Date;

  @Field(() => DateTimeISO)
  updated_at!: Date;

  @SqlSameRow()
  @Field(() => ReportCompactData)
  data!: ReportCompactData;

  @Field(() => UUID)
  organization_id!: string;

  @Field(() => UUID, { nullable: true })
  dealership_id!: string | null;

  @Extensions(GRAPHQL_ONLY)
  @Field(() => UUID)
  entity_id!: string;

  @Extensions(GRAPHQL_ONLY)
  @Field(() => UUID, { nullable: true, description: 'the creator (a user); null for leads' })
  profile_id!: string | null;

  @Extensions(GRAPHQL_ONLY)
  @Field(() => UUID, { nullable: true, description: 'the client of a lead' })
  contact_id!: string | null;

  @Extensions(GRAPHQL_ONLY)
  @Field(() => UUID, { nullable: true, description: 'the original report of a counter-inspection' })
  counter_id!: string | null;

  @Extensions(GRAPHQL_ONLY)
  @Field(() => ReportType)
  type!: ReportType;

  @Extensions(GRAPHQL_ONLY)
  @Field(() => Boolean)
  valid!: boolean;
}

/** The full report (spec 2.3), fields in the spec's order. */
@SqlTable('reports', { key: 'token' })
@ObjectType('Report', { simpleResolvers: true, description: 'A full report (spec 2.3)' })
export class Report {
  @Field(() => UUID)
  token!: string;

  @Field(() => DateTimeISO)
  created_at!: Date;

  @Field(() => DateTimeISO)
  updated_at!: Date;

  @Field(() => UUID)
  organization_id!: string;

  @Field(() => UUID, { nullable: true })
  dealership_id!: string | null;

  @Field(() => UUID, { nullable: true, description: 'the creator (a user); null for leads' })
  profile_id!: string | null;

  @SqlDocument('data')
  @Field(() => ReportData)
  data!: object;

  @SqlDocument('state')
  @Field(() => ReportState)
  state!: object;

  @Field(() => ReportType)
  type!: ReportType;

  @Field(() => Boolean)
  valid!: boolean;

  @SqlDocument('real_costs')
  @Field(() => RealCosts, { nullable: true })
  real_costs!: object | null;

  @Field(() => UUID, { nullable: true, description: 'the client of a lead' })
  contact_id!: string | null;

  @Field(() => UUID, { nullable: true, description: 'the original report of a counter-inspection' })
  counter_id!: string | null;

  @Extensions(GRAPHQL_ONLY)
  @Field(() => UUID)
  entity_id!: string;
}

@ObjectType('ReportPage', { simpleResolvers: true, description: 'A page of reports (spec 2.1)' })
export class ReportPage extends PageType(ReportCompact) {}
