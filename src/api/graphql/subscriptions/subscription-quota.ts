/**
 * How many subscriptions are open, per organization on this instance and per socket: each holds a
 * feed reader that reads at every notification, so an organization cannot open unbounded ones.
 */
import type { Gauge } from 'prom-client';

export class SubscriptionQuota {
  private readonly byOrganization = new Map<string, number>();

  constructor(
    readonly perOrganization: number,
    private readonly gauge?: Gauge,
  ) {}

  openFor(organizationId: string): number {
    return this.byOrganization.get(organizationId) ?? 0;
  }

  /** A release function (idempotent), or undefined when the organization is at its limit. */
  take(organizationId: string): (() => void) | undefined {
    const open = this.openFor(organizationId);
    if (open >= this.perOrganization) return undefined;
    this.byOrganization.set(organizationId, open + 1);
    this.gauge?.inc();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.gauge?.dec();
      const left = this.openFor(organizationId) - 1;
      if (left > 0) this.byOrganization.set(organizationId, left);
      else this.byOrganization.delete(organizationId);
    };
  }
}
