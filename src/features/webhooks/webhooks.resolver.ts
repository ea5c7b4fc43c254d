import { Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import { Statements } from '../../shared/schema/statements';
import { requireOrganization, type RequestContext } from '../context';
import {
  CreateWebhookEndpointArgs,
  RedeliverWebhookArgs,
  WebhookEndpointIdArgs,
  WebhookEndpointType,
  WebhookEndpointWithSecretType,
} from './webhook.types';
import {
  createWebhookEndpoint,
  disableWebhookEndpoint,
  listWebhookEndpoints,
  redeliverWebhook,
  rotateWebhookSecret,
} from './webhooks.service';

/** The organization's own webhook endpoints, for its API key (GraphQL only). */
@Resolver()
export class WebhooksResolver {
  @Statements(1)
  @Query(() => [WebhookEndpointType], { description: 'The organization\'s webhook endpoints (docs/events.md, "Webhooks")' })
  webhookEndpoints(@Ctx() context: RequestContext): Promise<WebhookEndpointType[]> {
    return listWebhookEndpoints(context.db.prisma, requireOrganization(context));
  }

  @Statements(1)
  @Mutation(() => WebhookEndpointWithSecretType, {
    description: 'Register a receiver of the change feed; the answer shows its secret once',
  })
  createWebhookEndpoint(@Args(() => CreateWebhookEndpointArgs) args: CreateWebhookEndpointArgs, @Ctx() context: RequestContext) {
    return createWebhookEndpoint(context.db.prisma, requireOrganization(context), args, { allowPrivate: context.webhooksAllowPrivate });
  }

  @Statements(1)
  @Mutation(() => WebhookEndpointWithSecretType, { description: 'A new signing secret, shown once; the old one stops signing at once' })
  rotateWebhookSecret(@Args(() => WebhookEndpointIdArgs) args: WebhookEndpointIdArgs, @Ctx() context: RequestContext) {
    return rotateWebhookSecret(context.db.prisma, requireOrganization(context), args.id);
  }

  @Statements(1)
  @Mutation(() => WebhookEndpointType, { description: 'Stop delivering to an endpoint (redeliverWebhook enables it again)' })
  disableWebhookEndpoint(@Args(() => WebhookEndpointIdArgs) args: WebhookEndpointIdArgs, @Ctx() context: RequestContext) {
    return disableWebhookEndpoint(context.db.prisma, requireOrganization(context), args.id);
  }

  @Statements(2)
  @Mutation(() => WebhookEndpointType, { description: 'Deliver again from a cursor, or from the oldest dead letter; enables the endpoint' })
  redeliverWebhook(@Args(() => RedeliverWebhookArgs) args: RedeliverWebhookArgs, @Ctx() context: RequestContext) {
    return redeliverWebhook(context.db.prisma, requireOrganization(context), args.id, args.after);
  }
}
