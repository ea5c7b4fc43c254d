/**
 * How many subscriptions are open, per organization and per socket: each holds a feed reader that
 * reads at every notification, so an organization cannot open unbounded ones. With Redis (the
 * instances' shared rate limits), the per-organization bound holds across instances (leases in
 * platform/rate-limit/shared-leases.ts); without it, or while Redis is away, per instance.
 */
import type { Gauge } from 'prom-client';
import type { SharedLeases } from '../../../platform/rate-limit/shared-leases';

export class SubscriptionQuota {
  private readonly byOrganization = new Map<string, number>();

  constructor(
    readonly perOrganization: number,
    private readonly gauge?: Gauge,
    private readonly shared?: SharedLeases,
  ) {}

  openFor(organizationId: string): number {
    return this.byOrganization.get(organizationId) ?? 0;
  }

  /** A release function (idempotent), or undefined when the organization is at its limit. */
  async take(organizationId: string): Promise<(() => void) | undefined> {
    if (this.openFor(organizationId) >= this.perOrganization) return undefined;
    const lease = this.shared ? await this.shared.take(organizationId, this.perOrganization) : 'unavailable';
    if (lease === undefined) return undefined;
    // Counted again: other subscribes of this instance may have been admitted while Redis answered.
    const open = this.openFor(organizationId);
    if (open >= this.perOrganization) {
      if (lease !== 'unavailable') lease();
      return undefined;
    }
    this.byOrganization.set(organizationId, open + 1);
    this.gauge?.inc();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (lease !== 'unavailable') lease();
      this.gauge?.dec();
      const left = this.openFor(organizationId) - 1;
      if (left > 0) this.byOrganization.set(organizationId, left);
      else this.byOrganization.delete(organizationId);
    };
  }
}
