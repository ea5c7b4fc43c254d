import { Ctx, Extensions, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RequestContext } from '../context';
import { GRAPHQL_ONLY } from '../../shared/schema/rest-visibility';
import { Statements } from '../../shared/schema/statements';
import { Report } from '../reports/report.types';
import { Notification } from './notification.types';

/** `Report.notifications`: GraphQL only (the spec's REST report has no such field). */
@Resolver(() => Report)
export class ReportNotificationsResolver {
  @Extensions(GRAPHQL_ONLY)
  @Statements(1)
  @FieldResolver(() => [Notification], { description: 'the e-mail and SMS notifications of a lead, oldest first' })
  notifications(@Root() report: { token: string }, @Ctx() context: RequestContext): Promise<Notification[]> {
    return context.loaders.notificationsByReport.load(report.token);
  }
}
