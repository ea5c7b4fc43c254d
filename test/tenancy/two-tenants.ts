/**
 * Two organizations over one database: A (whose key every sweep uses) and B (whose data must
 * never come back). The seed keeps each organization's rows consistent, so a missing organization
 * check would go unnoticed; `plantCrossLinks` therefore adds the references a bad import or a
 * manual fix could leave behind, each pointing across the boundary:
 *
 * - A's report rX → B's dealership, B's user (profile), B's contact, B's report (counter), and
 *   an outbox row of B on it (notifications);
 * - A's user uA → B's dealership; B's report rB → A's dealership and uA (profile);
 * - B's user uB → A's dealership.
 *
 * All of them are the newest of their kind, so that any first page would show them.
 * `leaksIn` then looks for B anywhere in an answer: an object of another organization, an id or
 * token of B, or a text only B has.
 */
import type { TestServer } from '../support/server';

export interface Organization {
  id: string;
  key: string;
}

export interface Planted {
  /** A's report pointing at B's dealership, user, contact and report */
  rX: string;
  /** A's user attached to B's dealership, and profile of B's report rB */
  uA: string;
  /** A's dealership that B's report rB and B's user uB point at */
  dA: string;
  /** B's report attached to A's dealership and user */
  rB: string;
  /** B's user attached to A's dealership */
  uB: string;
  /** what rX points at */
  dB: string;
  uB1: string;
  cB: string;
  tB: string;
  /** the body and Idempotency-Key of B's lead */
  bLead: { body: Record<string, unknown>; idempotencyKey: string; token: string };
}

export interface Tenants {
  server: TestServer;
  a: Organization;
  b: Organization;
  planted: Planted;
  /** every id and token of B: organization, entities, dealerships, users, reports, contacts, outbox */
  bIdentities: Set<string>;
  /** texts found in B's data and nowhere in A's (names, e-mails, VINs, plates) */
  bSecrets: string[];
  /** all of A's seeded data as lower-case JSON text, to tell B's texts from shared ones */
  aText: string;
}

const DAY_MS = 86_400_000;

async function postJson(
  url: string,
  key: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export async function plantCrossLinks(server: TestServer): Promise<Tenants> {
  const prisma = server.db.prisma;
  const [orgA, orgB] = server.dataset.organizations;
  const a = { id: orgA!.id, key: server.keys[0]! };
  const b = { id: orgB!.id, key: server.keys[1]! };
  const { dataset } = server;
  const ofA = <T extends { organization_id: string }>(rows: T[]) => rows.filter((r) => r.organization_id === a.id);
  const ofB = <T extends { organization_id: string }>(rows: T[]) => rows.filter((r) => r.organization_id === b.id);

  // B's lead: a contact, a remote report and two outbox rows of B, under an Idempotency-Key that A will reuse.
  const bLeadBody = {
    dealership: ofB(dataset.dealerships)[0]!.id,
    name: 'Bérangère Secretaire-Horizon',
    email: 'berangere.secret@horizon-b.example',
    phone: '+33611223344',
    folder_name: 'DOSSIER-HORIZON-CONFIDENTIEL',
    sendEmail: true,
    sendPhone: true,
  };
  const idempotencyKey = 'crm-shared-key-42';
  const lead = await postJson(`${server.url}/public/reports/create-lead`, b.key, bLeadBody, { 'idempotency-key': idempotencyKey });
  if (lead.status !== 201) throw new Error(`B's lead was not created: ${lead.status} ${JSON.stringify(lead.body)}`);
  const tB = lead.body.token as string;
  const cB = (await prisma.report.findUniqueOrThrow({ where: { token: tB }, select: { contact_id: true } })).contact_id!;

  const future = new Date(Date.now() + DAY_MS);
  const dA = ofA(dataset.dealerships)[0]!.id;
  const dB = ofB(dataset.dealerships)[1]!.id;
  const rX = ofA(dataset.reports).find((r) => r.valid && r.type !== 'remote')!.token;
  const rB = ofB(dataset.reports).find((r) => r.valid && r.token !== tB)!.token;
  const uA = ofA(dataset.users).find((u) => u.is_active)!.id;
  const uB = ofB(dataset.users).find((u) => u.is_active)!.id;
  const uB1 = ofB(dataset.users).filter((u) => u.id !== uB)[0]!.id;

  await prisma.report.update({
    where: { token: rX },
    data: { dealership_id: dB, profile_id: uB1, contact_id: cB, counter_id: tB, created_at: future, updated_at: future },
  });
  await prisma.report.update({ where: { token: rB }, data: { dealership_id: dA, profile_id: uA, created_at: future, updated_at: future } });
  await prisma.user.update({ where: { id: uA }, data: { dealership_id: dB } });
  await prisma.user.update({ where: { id: uB }, data: { dealership_id: dA, is_active: true, created_at: future } });
  await prisma.notificationOutbox.create({
    data: { report_token: rX, organization_id: b.id, channel: 'email', recipient: 'planted.secret@horizon-b.example', payload: {} },
  });

  const bIdentities = new Set<string>([
    b.id,
    ...ofB(dataset.entities).map((e) => e.id),
    ...ofB(dataset.dealerships).map((d) => d.id),
    ...ofB(dataset.users).map((u) => u.id),
    ...(await prisma.report.findMany({ where: { organization_id: b.id }, select: { token: true } })).map((r) => r.token),
    ...(await prisma.contact.findMany({ where: { organization_id: b.id }, select: { id: true } })).map((c) => c.id),
    ...(await prisma.notificationOutbox.findMany({ where: { organization_id: b.id }, select: { id: true } })).map((o) => o.id),
  ]);

  // B's texts, kept only when nothing of A contains them (case-insensitively).
  const aText = JSON.stringify([
    dataset.organizations.filter((o) => o.id === a.id),
    ofA(dataset.entities),
    ofA(dataset.dealerships),
    ofA(dataset.users),
    ofA(dataset.reports),
  ]).toLowerCase();
  const candidates = [
    orgB!.name,
    ...ofB(dataset.entities).map((e) => e.name),
    ...ofB(dataset.dealerships).map((d) => d.name),
    ...ofB(dataset.users).flatMap((u) => [u.name, u.email]),
    ...ofB(dataset.reports).flatMap((r) => [r.data.vehicle.vin, r.data.vehicle.license.number, r.data.metadata.individual.email]),
    bLeadBody.name,
    bLeadBody.email,
    bLeadBody.folder_name,
  ];
  const bSecrets = [
    ...new Set(candidates.filter((t): t is string => typeof t === 'string' && t.length >= 6 && !aText.includes(t.toLowerCase()))),
  ];

  return {
    server,
    a,
    b,
    planted: { rX, uA, dA, rB, uB, dB, uB1, cB, tB, bLead: { body: bLeadBody, idempotencyKey, token: tB } },
    bIdentities,
    bSecrets,
    aText,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Where B shows in an answer: an object whose organization_id is not A's, an object whose id or
 * token is B's, or one of B's texts anywhere. A's own rows may hold B's ids as plain references
 * (rX.dealership_id): those are A's data, not B's.
 */
export function leaksIn(t: Tenants, body: unknown): string[] {
  const leaks: string[] = [];
  const pending: { value: unknown; path: string }[] = [{ value: body, path: '$' }];
  while (pending.length > 0) {
    const { value, path } = pending.pop()!;
    if (!isObject(value)) continue;
    if (!Array.isArray(value)) {
      if (typeof value.organization_id === 'string' && value.organization_id !== t.a.id)
        leaks.push(`${path}.organization_id is ${value.organization_id}`);
      for (const key of ['id', 'token']) {
        if (typeof value[key] === 'string' && t.bIdentities.has(value[key] as string)) leaks.push(`${path}.${key} is B's ${value[key]}`);
      }
    }
    for (const [key, item] of Object.entries(value)) pending.push({ value: item, path: `${path}.${key}` });
  }
  const text = (JSON.stringify(body) ?? '').toLowerCase();
  for (const secret of t.bSecrets) if (text.includes(secret.toLowerCase())) leaks.push(`B's text "${secret}" in the answer`);
  return leaks;
}
