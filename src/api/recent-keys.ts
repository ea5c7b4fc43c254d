/**
 * The principals of keys recently authenticated, by digest. Used for one thing only: a key whose
 * organization's budget this instance knows to be spent is answered 429 without its database
 * lookup, so a tenant hammering the API at full budget costs no SQL at all. A key is never served
 * on this memory: whenever its organization may be served, the key is looked up again (revocation
 * still takes effect at once; a revoked key of a spent organization gets 429 instead of 401 until
 * the budget's window ends, and no data either way).
 */
import { digestOf, type ApiKeyPrincipal } from '../features/auth/api-keys';

/** Keys remembered at most (the oldest forgotten first): a few hundred bytes each. */
const MAX_KEYS = 10_000;

export class RecentKeys {
  private readonly byDigest = new Map<string, ApiKeyPrincipal>();

  remember(presented: string, principal: ApiKeyPrincipal): void {
    const digest = digestOf(presented);
    this.byDigest.delete(digest);
    this.byDigest.set(digest, principal);
    if (this.byDigest.size > MAX_KEYS) this.byDigest.delete(this.byDigest.keys().next().value!);
  }

  recall(presented: string): ApiKeyPrincipal | undefined {
    return this.byDigest.get(digestOf(presented));
  }
}
