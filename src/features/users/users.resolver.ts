import { Args, Ctx, Extensions, FieldResolver, Query, Resolver, Root, UseMiddleware } from 'type-graphql';
import { ArgumentConstraintsMiddleware } from '../../api/contract/argument-constraints';
import { Dealership } from '../dealerships/dealership.types';
import { GRAPHQL_ONLY } from '../../shared/schema/rest-visibility';
import { requireOrganization, type GraphQLContext } from '../context';
import { notFound } from '../../shared/errors';
import { ReportsArgs } from '../reports/report-filters.args';
import { ReportPage } from '../reports/report.types';
import { User, UserArgs, UserPage, UsersArgs } from './user.types';
import { listUsers } from './users.service';

@UseMiddleware(ArgumentConstraintsMiddleware)
@Resolver(() => User)
export class UsersResolver {
  @Query(() => UserPage, { description: 'List users (spec 4.4)' })
  users(@Args(() => UsersArgs) args: UsersArgs, @Ctx() context: GraphQLContext): Promise<UserPage> {
    return listUsers(context.db.prisma, requireOrganization(context), args);
  }

  @Query(() => User, { description: 'Fetch one user (spec 4.5)' })
  async user(@Args(() => UserArgs) { user_id }: UserArgs, @Ctx() context: GraphQLContext): Promise<User> {
    requireOrganization(context);
    const user = await context.loaders.user.load(user_id.toLowerCase());
    if (!user) throw notFound('User not found');
    return user;
  }

  @Extensions(GRAPHQL_ONLY)
  @FieldResolver(() => Dealership, { nullable: true })
  dealership(@Root() user: User, @Ctx() context: GraphQLContext) {
    return user.dealership_id ? context.loaders.dealership.load(user.dealership_id) : null;
  }

  @Extensions(GRAPHQL_ONLY)
  @FieldResolver(() => ReportPage, { description: 'reports this user created, with the filters of `reports`' })
  reports(@Root() user: User, @Args(() => ReportsArgs) args: ReportsArgs, @Ctx() context: GraphQLContext) {
    return context.loaders.reportPages('profile_id', args).load(user.id);
  }
}
