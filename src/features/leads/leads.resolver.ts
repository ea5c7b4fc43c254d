import { Args, Ctx, Mutation, Resolver, UseMiddleware } from 'type-graphql';
import { ArgumentConstraintsMiddleware } from '../../api/contract/argument-constraints';
import { requireOrganization, type GraphQLContext } from '../context';
import { rateLimited } from '../../shared/errors';
import { CreateLeadArgs, CreatedLead } from './lead.types';
import { createLead } from './leads.service';

@UseMiddleware(ArgumentConstraintsMiddleware)
@Resolver()
export class LeadsResolver {
  @Mutation(() => CreatedLead, {
    description:
      'Create a lead: a remote report for a client, counted against the entity quota, optionally notifying the client (spec 4.3). Send an Idempotency-Key header to make retries safe.',
  })
  async createLead(@Args(() => CreateLeadArgs) args: CreateLeadArgs, @Ctx() context: GraphQLContext): Promise<CreatedLead> {
    const organizationId = requireOrganization(context);
    // Leads have their own, lower budget on top of the per-key request limit.
    if (context.auth.status === 'authenticated') {
      const decision = await context.rateLimits.leads.consume(context.auth.principal.keyId);
      if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
    }
    const header = context.headers['idempotency-key'];
    return createLead(context.db.prisma, {
      organizationId,
      args,
      appBaseUrl: context.config.appBaseUrl,
      idempotencyKey: (Array.isArray(header) ? header[0] : header) || undefined,
    });
  }
}
