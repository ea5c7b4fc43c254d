import type { PrismaClient } from '../../generated/prisma/client';
import { authenticateApiKey, type ApiKeyPrincipal } from './api-keys';

/** The outcome of reading `x-api-key`, kept apart so errors can say which case it was. */
export type RequestAuth = { status: 'missing' } | { status: 'invalid' } | { status: 'authenticated'; principal: ApiKeyPrincipal };

export async function authenticateRequest(prisma: PrismaClient, header: string | string[] | undefined): Promise<RequestAuth> {
  const presented = Array.isArray(header) ? header[0] : header;
  if (presented === undefined || presented === '') return { status: 'missing' };
  const principal = await authenticateApiKey(prisma, presented.trim());
  return principal ? { status: 'authenticated', principal } : { status: 'invalid' };
}
