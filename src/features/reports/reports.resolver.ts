import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, type ClassType, Ctx, Extensions, FieldResolver, ID, Info, Query, Resolver, Root } from 'type-graphql';
import { Contact } from '../contacts/contact.type';
import { Dealership } from '../dealerships/dealership.types';
import { requireOrganization, type RequestContext } from '../context';
import { notFound } from '../../shared/errors';
import { CursorArgs } from '../../shared/pagination';
import { GRAPHQL_ONLY, restSelection } from '../../shared/schema/rest-visibility';
import { UUID } from '../../shared/schema/scalars';
import { selectsField } from '../../shared/schema/selection';
import { SqlColumn, SqlJoin } from '../../shared/schema/sql-source';
import { Statements } from '../../shared/schema/statements';
import { Organization } from '../organizations/organization.type';
import { User } from '../users/user.types';
import { ReportsArgs } from './report-filters.args';
import { Report, ReportCompact, ReportPage } from './report.types';
import { listReports } from './reports.service';

@Resolver()
export class ReportsResolver {
  @Statements(2)
  @Query(() => ReportPage, { description: 'List reports (spec 4.1), newest first by default' })
  reports(
    @Args(() => ReportsArgs) args: ReportsArgs,
    @Args(() => CursorArgs) { cursor }: CursorArgs,
    @Ctx() context: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ReportPage> {
    const { limit, offset, order_by, ...filters } = args;
    return listReports(
      context.reads,
      requireOrganization(context),
      filters,
      { limit, offset, order_by, cursor },
      {
        countTotal: selectsField(info, 'total'),
        cursors: context.cursors,
        nextPage: selectsField(info, 'next_cursor') || selectsField(info, 'pageInfo'),
      },
    );
  }

  @Statements(1)
  @Query(() => Report, {
    nullable: true,
    description:
      'Fetch one full report (spec 4.2). Null, with a NOT_FOUND error, when the organization has no such report: ' +
      'sibling fields keep their data.',
  })
  async report(@Arg('report_id', () => UUID) reportId: string, @Ctx() context: RequestContext): Promise<Report> {
    requireOrganization(context);
    const report = await context.loaders.report.load(reportId.toLowerCase());
    if (!report) throw notFound('Report not found');
    return report;
  }
}

interface ReportIds {
  organization_id: string;
  dealership_id: string | null;
  profile_id: string | null;
  contact_id: string | null;
  counter_id: string | null;
}

/**
 * The same relations on the compact and the full report, each through a per-request loader.
 * REST shows none of them, except the compact report's `profile` (spec 2.2: id, name, email, phone).
 */
function reportRelationsResolver(type: ClassType, profileInRest: boolean) {
  @Resolver(() => type)
  class ReportRelationsResolver {
    // Caches normalize on `id` (Apollo Client, urql graphcache) with no configuration.
    @Extensions(GRAPHQL_ONLY)
    @SqlColumn('token')
    @FieldResolver(() => ID, { description: 'the report token: the identifier client caches normalize on' })
    id(@Root() report: { token: string }): string {
      return report.token;
    }

    @Extensions(GRAPHQL_ONLY)
    @Statements(1)
    @SqlJoin('organization_id')
    @FieldResolver(() => Organization)
    organization(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      return context.loaders.organization.load(report.organization_id);
    }

    @Extensions(GRAPHQL_ONLY)
    @Statements(1)
    @SqlJoin('dealership_id')
    @FieldResolver(() => Dealership, { nullable: true })
    dealership(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      return report.dealership_id ? context.loaders.dealership.load(report.dealership_id) : null;
    }

    @Extensions(profileInRest ? restSelection('id name email phone') : GRAPHQL_ONLY)
    @Statements(1)
    @SqlJoin('profile_id')
    @FieldResolver(() => User, { nullable: true, description: 'the creator; for lists, spec 2.2 "profile" (id, name, email, phone)' })
    profile(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      return report.profile_id ? context.loaders.user.load(report.profile_id) : null;
    }

    @Extensions(GRAPHQL_ONLY)
    @Statements(1)
    @SqlJoin('contact_id')
    @FieldResolver(() => Contact, { nullable: true })
    contact(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      return report.contact_id ? context.loaders.contact.load(report.contact_id) : null;
    }

    @Extensions(GRAPHQL_ONLY)
    @Statements(1)
    @SqlJoin('counter_id')
    @FieldResolver(() => Report, { nullable: true, description: 'the original report of a counter-inspection' })
    counter(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      return report.counter_id ? context.loaders.report.load(report.counter_id) : null;
    }
  }
  return ReportRelationsResolver;
}

export const ReportRelationsResolver = reportRelationsResolver(Report, false);
export const ReportCompactRelationsResolver = reportRelationsResolver(ReportCompact, true);
