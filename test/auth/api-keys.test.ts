import { digestOf, generateApiKey, issueApiKey, PresentedKey, revokeApiKey } from '../../src/features/auth/api-keys';
import { ApiKeyAuthenticator } from '../../src/features/auth/api-key-cache';
import { principalOfKey } from '../support/api-keys';
import { waitFor } from '../support/wait';
import { createMigratedDatabase, DATABASE_KINDS } from '../support/databases';

describe('API keys', () => {
  it('have the documented format and at least 128 random bits', () => {
    const keys = new Set(Array.from({ length: 200 }, () => generateApiKey('live')));
    expect(keys.size).toBe(200);
    for (const key of keys) expect(key).toMatch(/^vr_live_[A-Za-z0-9_-]{32}$/); // 32 base64url chars = 192 bits
  });

  describe.each(DATABASE_KINDS)('on %s', (kind) => {
    let env: Awaited<ReturnType<typeof createMigratedDatabase>>;
    let organizationId: string;
    beforeAll(async () => {
      env = await createMigratedDatabase(kind);
      organizationId = (await env.db.prisma.organization.create({ data: { name: 'Org' } })).id;
    });
    afterAll(() => env.cleanup());

    it('stores only a digest and a display prefix, never the key', async () => {
      const issued = await issueApiKey(env.db.prisma, organizationId, 'ci');
      const row = await env.db.prisma.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
      expect(row.digest).toBe(digestOf(issued.key));
      expect(row.digest).not.toContain(issued.key);
      expect(issued.key.startsWith(row.prefix)).toBe(true);
      expect(row.prefix.length).toBeLessThan(16);
      expect(JSON.stringify(row)).not.toContain(issued.key.slice(12));
    });

    it('authenticates active keys, several per organization, and refuses revoked, unknown and malformed ones', async () => {
      const first = await issueApiKey(env.db.prisma, organizationId, 'one');
      const second = await issueApiKey(env.db.prisma, organizationId, 'two');
      expect(await principalOfKey(env.db.prisma, first.key)).toEqual({ keyId: first.id, organizationId });
      expect(await principalOfKey(env.db.prisma, second.key)).toEqual({ keyId: second.id, organizationId });
      expect(await revokeApiKey(env.db.prisma, first.id)).toBe(true);
      expect(await principalOfKey(env.db.prisma, first.key)).toBeNull();
      expect(await principalOfKey(env.db.prisma, second.key)).not.toBeNull();
      expect(await principalOfKey(env.db.prisma, generateApiKey('live'))).toBeNull();
      expect(await principalOfKey(env.db.prisma, 'not a key')).toBeNull();
      expect(await principalOfKey(env.db.prisma, `${second.key}x`)).toBeNull();
    });

    it('records last use', async () => {
      const issued = await issueApiKey(env.db.prisma, organizationId, 'used');
      // The service's own path: the authenticator every request goes through.
      expect(await new ApiKeyAuthenticator(env.db.prisma, env.db).authenticate(new PresentedKey(issued.key))).toEqual({
        keyId: issued.id,
        organizationId,
      });
      const lastUsed = await waitFor(async () => (await env.db.prisma.apiKey.findUniqueOrThrow({ where: { id: issued.id } })).last_used_at);
      expect(Date.now() - lastUsed!.getTime()).toBeLessThan(60_000);
    });
  });
});
