import { Args, Ctx, Extensions, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import { Dealership } from '../dealerships/dealership.types';
import { GRAPHQL_ONLY } from '../../shared/schema/rest-visibility';
import { Statements } from '../../shared/schema/statements';
import { SqlJoin } from '../../shared/schema/sql-source';
import { requireOrganization, type RequestContext } from '../context';
import { notFound } from '../../shared/errors';
import { CursorArgs } from '../../shared/pagination';
import { ReportsArgs } from '../reports/report-filters.args';
import { ReportPage } from '../reports/report.types';
import { User, UserArgs, UserPage, UsersArgs } from './user.types';
import { listUsers } from './users.service';

@Resolver(() => User)
export class UsersResolver {
  @Statements(2)
  @Query(() => UserPage, { description: 'List users (spec 4.4)' })
  users(
    @Args(() => UsersArgs) args: UsersArgs,
    @Args(() => CursorArgs) { cursor }: CursorArgs,
    @Ctx() context: RequestContext,
  ): Promise<UserPage> {
    return listUsers(context.reads, requireOrganization(context), { ...args, cursor }, context.cursors);
  }

  @Statements(1)
  @Query(() => User, {
    nullable: true,
    description: 'Fetch one user (spec 4.5). Null, with a NOT_FOUND error, when the organization has no such user.',
  })
  async user(@Args(() => UserArgs) { user_id }: UserArgs, @Ctx() context: RequestContext): Promise<User> {
    requireOrganization(context);
    const user = await context.loaders.user.load(user_id.toLowerCase());
    if (!user) throw notFound('User not found');
    return user;
  }

  @Extensions(GRAPHQL_ONLY)
  @Statements(1)
  @SqlJoin('dealership_id')
  @FieldResolver(() => Dealership, { nullable: true })
  dealership(@Root() user: User, @Ctx() context: RequestContext) {
    return user.dealership_id ? context.loaders.dealership.load(user.dealership_id) : null;
  }

  @Extensions(GRAPHQL_ONLY)
  @Statements(2)
  @FieldResolver(() => ReportPage, { description: 'reports this user created, with the filters of `reports`' })
  reports(@Root() user: User, @Args(() => ReportsArgs) args: ReportsArgs, @Ctx() context: RequestContext) {
    return context.loaders.reportPages('profile_id', args).load(user.id);
  }
}
