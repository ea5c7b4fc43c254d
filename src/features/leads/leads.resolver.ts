import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import { rateLimited } from '../../shared/errors';
import { Statements } from '../../shared/schema/statements';
import { requireOrganization, type RequestContext } from '../context';
import { CreateLeadArgs, CreatedLead } from './lead.types';
import { createLead } from './leads.service';

@Resolver()
export class LeadsResolver {
  // dealership, idempotency key, then the transaction: quota, contact, report, outbox, key
  @Statements(8)
  @Mutation(() => CreatedLead, {
    description:
      'Create a lead: a remote report for a client, counted against the entity quota, optionally notifying the client. Send an Idempotency-Key header to make retries safe.',
  })
  async createLead(@Args(() => CreateLeadArgs) args: CreateLeadArgs, @Ctx() context: RequestContext): Promise<CreatedLead> {
    const organizationId = requireOrganization(context);
    // Leads have their own, lower budget on top of the per-key request limit.
    const decision = await context.rateLimits.leads.consume(context.principal!.keyId);
    if (!decision.allowed) throw rateLimited(decision.retryAfterSeconds);
    return createLead(context.db.prisma, {
      organizationId,
      args,
      appBaseUrl: context.appBaseUrl,
      idempotencyKey: context.idempotencyKey,
    });
  }
}
