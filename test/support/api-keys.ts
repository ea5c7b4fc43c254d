/** What a presented key resolves to in the database (no cache): the admin CLI's keys checked by the tests. */
import type { PrismaClient } from '../../src/generated/prisma/client';
import { digestOfPresented, findApiKey, type ApiKeyPrincipal } from '../../src/features/auth/api-keys';

export async function principalOfKey(prisma: PrismaClient, presented: string): Promise<ApiKeyPrincipal | null> {
  const digest = digestOfPresented(presented);
  return digest === null ? null : ((await findApiKey(prisma, digest))?.principal ?? null);
}
