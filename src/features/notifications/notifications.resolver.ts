import { Ctx, Extensions, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { GRAPHQL_ONLY } from '../../shared/schema/rest-visibility';
import { Report } from '../reports/report.types';
import { Notification } from './notification.types';

/** `Report.notifications`: GraphQL only (the spec's REST report has no such field). */
@Resolver(() => Report)
export class ReportNotificationsResolver {
  @Extensions(GRAPHQL_ONLY)
  @FieldResolver(() => [Notification], { description: 'the e-mail and SMS notifications of a lead, oldest first' })
  notifications(@Root() report: { token: string }, @Ctx() context: GraphQLContext): Promise<Notification[]> {
    return context.loaders.notificationsByReport.load(report.token);
  }
}
