import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, type ClassType, Ctx, Extensions, FieldResolver, ID, Info, Query, Resolver, Root } from 'type-graphql';
import { Contact } from '../contacts/contact.type';
import { Dealership } from '../dealerships/dealership.types';
import { requireOrganization, type RequestContext } from '../context';
import { notFound } from '../../shared/errors';
import { CursorArgs } from '../../shared/pagination';
import { GRAPHQL_ONLY, restSelection } from '../../shared/schema/rest-visibility';
import { UUID } from '../../shared/schema/scalars';
import { selectedNestedFieldNames, selectsField, selectsNestedField } from '../../shared/schema/selection';
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
  async reports(
    @Args(() => ReportsArgs) args: ReportsArgs,
    @Args(() => CursorArgs) { cursor }: CursorArgs,
    @Ctx() context: RequestContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ReportPage> {
    const organizationId = requireOrganization(context);
    const { limit, offset, order_by, ...filters } = args;
    // Relations every row will ask for are read by the page's own statement and handed to their
    // loaders: a page and its relations in one round trip, not one more per relation.
    const relations = {
      dealership: selectsNestedField(info, 'items', 'dealership'),
      profile: selectsNestedField(info, 'items', 'profile'),
    };
    const written = context.writtenItems;
    const {
      related,
      written: texts,
      ...page
    } = await listReports(
      context.reads,
      organizationId,
      filters,
      { limit, offset, order_by, cursor },
      selectsField(info, 'total'),
      context.cursors,
      relations,
      selectedNestedFieldNames(info, 'items'),
      selectsField(info, 'next_cursor') || selectsField(info, 'pageInfo'),
      written?.select,
    );
    if (written && texts) written.texts = texts;
    if (related) {
      context.loaders.remember('dealership', related.dealerships);
      context.loaders.remember('user', related.profiles);
    }
    return page;
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
    @FieldResolver(() => ID, { description: 'the report token: the identifier client caches normalize on' })
    id(@Root() report: { token: string }): string {
      return report.token;
    }

    @Extensions(GRAPHQL_ONLY)
    @Statements(1)
    @FieldResolver(() => Organization)
    organization(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      return context.loaders.organization.load(report.organization_id);
    }

    @Extensions(GRAPHQL_ONLY)
    @Statements(1)
    @FieldResolver(() => Dealership, { nullable: true })
    dealership(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      if (!report.dealership_id) return null;
      return context.loaders.known.dealership.get(report.dealership_id) ?? context.loaders.dealership.load(report.dealership_id);
    }

    @Extensions(profileInRest ? restSelection('id name email phone') : GRAPHQL_ONLY)
    @Statements(1)
    @FieldResolver(() => User, { nullable: true, description: 'the creator; for lists, spec 2.2 "profile" (id, name, email, phone)' })
    profile(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      if (!report.profile_id) return null;
      return context.loaders.known.user.get(report.profile_id) ?? context.loaders.user.load(report.profile_id);
    }

    @Extensions(GRAPHQL_ONLY)
    @Statements(1)
    @FieldResolver(() => Contact, { nullable: true })
    contact(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      return report.contact_id ? context.loaders.contact.load(report.contact_id) : null;
    }

    @Extensions(GRAPHQL_ONLY)
    @Statements(1)
    @FieldResolver(() => Report, { nullable: true, description: 'the original report of a counter-inspection' })
    counter(@Root() report: ReportIds, @Ctx() context: RequestContext) {
      return report.counter_id ? context.loaders.report.load(report.counter_id) : null;
    }
  }
  return ReportRelationsResolver;
}

export const ReportRelationsResolver = reportRelationsResolver(Report, false);
export const ReportCompactRelationsResolver = reportRelationsResolver(ReportCompact, true);
