import { Args, Ctx, Extensions, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { GRAPHQL_ONLY } from '../../shared/schema/rest-visibility';
import { Statements } from '../../shared/schema/statements';
import { requireOrganization, type RequestContext } from '../context';
import { ReportsArgs } from '../reports/report-filters.args';
import { ReportPage } from '../reports/report.types';
import { CursorArgs, PageArgs } from '../../shared/pagination';
import { UserPage } from '../users/user.types';
import { Dealership, DealershipPage, DealershipsArgs } from './dealership.types';
import { listDealerships } from './dealerships.service';

@Resolver(() => Dealership)
export class DealershipsResolver {
  @Statements(2)
  @Query(() => DealershipPage, { description: 'List dealerships (spec 4.6), by position then name by default' })
  dealerships(
    @Args(() => DealershipsArgs) args: DealershipsArgs,
    @Args(() => CursorArgs) { cursor }: CursorArgs,
    @Ctx() context: RequestContext,
  ): Promise<DealershipPage> {
    return listDealerships(context.reads, requireOrganization(context), { ...args, cursor }, context.cursors);
  }

  @Extensions(GRAPHQL_ONLY)
  @Statements(2)
  @FieldResolver(() => UserPage, { description: 'users attached to this dealership, newest first' })
  users(@Root() dealership: Dealership, @Args(() => PageArgs) page: PageArgs, @Ctx() context: RequestContext) {
    return context.loaders.userPagesByDealership({ limit: page.limit, offset: page.offset }).load(dealership.id);
  }

  @Extensions(GRAPHQL_ONLY)
  @Statements(2)
  @FieldResolver(() => ReportPage, { description: "this dealership's reports, with the filters of `reports`" })
  reports(@Root() dealership: Dealership, @Args(() => ReportsArgs) args: ReportsArgs, @Ctx() context: RequestContext) {
    return context.loaders.reportPages('dealership_id', args).load(dealership.id);
  }
}
