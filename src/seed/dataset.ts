/**
 * Deterministic demo dataset: organizations, entities, dealerships, users and reports, as plain
 * rows (no database access). Same options, same output, whatever the clock or the machine.
 */
import type { Dealership, Entity, Organization, Report, User } from '../generated/prisma/client';
import { ReportType as ReportTypeValues, type ReportType } from '../generated/prisma/enums';
import {
  type ClientIdentity,
  type RealCosts,
  type ReportData,
  type ReportState,
  type VehicleIdentity,
  buildReportDocument,
  createVehicleIdentity,
} from './report-document';
import type { DerivedReportColumn } from '../platform/db/migrations/derived-columns';
import { SeededRandom, findBrand } from './vehicles';

// ---------------------------------------------------------------------------------------------
// Row types: exactly the Prisma models' scalar columns (the report's generated columns excluded).

// JSON documents are type aliases, not interfaces, so they stay assignable to Prisma's JSON input types.
export type PostalAddress = {
  street: string;
  zipcode: string;
  city: string;
  country: string;
};

export type OrganizationRow = Organization;
export type EntityRow = Entity;
export type DealershipRow = Omit<Dealership, 'address'> & { address: PostalAddress };
export type UserRow = Omit<User, 'address'> & { address: PostalAddress | null };

/** Columns PostgreSQL derives from `data`, `state` and `real_costs`; the client never writes them. */
export type GeneratedReportColumn = DerivedReportColumn | 'typed_data' | 'typed_state' | 'typed_real_costs' | 'typed_shape';

export type ReportRow = Omit<Report, GeneratedReportColumn | 'data' | 'state' | 'real_costs'> & {
  data: ReportData;
  state: ReportState;
  real_costs: RealCosts;
};

export interface DemoDataset {
  organizations: OrganizationRow[];
  entities: EntityRow[];
  dealerships: DealershipRow[];
  users: UserRow[];
  reports: ReportRow[];
}

export interface DemoDatasetOptions {
  seed?: number;
  reports?: number;
  now?: Date;
}

export const DEFAULT_DEMO_SEED = 42;
export const DEFAULT_DEMO_REPORT_COUNT = 2400;
export const DEFAULT_DEMO_NOW = new Date('2026-11-01T12:00:00Z');

/** In the schema's order (prisma/schema.prisma), which `order_by=type` follows. */
export const REPORT_TYPES: readonly ReportType[] = Object.values(ReportTypeValues);

// ---------------------------------------------------------------------------------------------
// Reference data (French, real cities and postcodes)

interface City {
  name: string;
  zipcode: string;
  latitude: number;
  longitude: number;
  region: 'sud' | 'rhone' | 'nord' | 'ouest' | 'idf';
}

const CITIES: readonly City[] = [
  { name: 'Marseille', zipcode: '13008', latitude: 43.27, longitude: 5.388, region: 'sud' },
  { name: 'Aix-en-Provence', zipcode: '13100', latitude: 43.5297, longitude: 5.4474, region: 'sud' },
  { name: 'Aubagne', zipcode: '13400', latitude: 43.2928, longitude: 5.5707, region: 'sud' },
  { name: 'Toulon', zipcode: '83000', latitude: 43.1242, longitude: 5.928, region: 'sud' },
  { name: 'Avignon', zipcode: '84000', latitude: 43.9493, longitude: 4.8055, region: 'sud' },
  { name: 'Nice', zipcode: '06000', latitude: 43.7102, longitude: 7.262, region: 'sud' },
  { name: 'Lyon', zipcode: '69007', latitude: 45.7485, longitude: 4.8467, region: 'rhone' },
  { name: 'Villeurbanne', zipcode: '69100', latitude: 45.7719, longitude: 4.8902, region: 'rhone' },
  { name: 'Grenoble', zipcode: '38000', latitude: 45.1885, longitude: 5.7245, region: 'rhone' },
  { name: 'Saint-Étienne', zipcode: '42000', latitude: 45.4397, longitude: 4.3872, region: 'rhone' },
  { name: 'Vienne', zipcode: '38200', latitude: 45.5255, longitude: 4.8743, region: 'rhone' },
  { name: 'Lille', zipcode: '59000', latitude: 50.6292, longitude: 3.0573, region: 'nord' },
  { name: 'Roubaix', zipcode: '59100', latitude: 50.6942, longitude: 3.1746, region: 'nord' },
  { name: 'Nantes', zipcode: '44000', latitude: 47.2184, longitude: -1.5536, region: 'ouest' },
  { name: 'Rennes', zipcode: '35000', latitude: 48.1173, longitude: -1.6778, region: 'ouest' },
  { name: 'Paris', zipcode: '75015', latitude: 48.8417, longitude: 2.3, region: 'idf' },
  { name: 'Nanterre', zipcode: '92000', latitude: 48.8924, longitude: 2.2071, region: 'idf' },
  { name: 'Montreuil', zipcode: '93100', latitude: 48.8638, longitude: 2.4485, region: 'idf' },
  { name: 'Versailles', zipcode: '78000', latitude: 48.8049, longitude: 2.1204, region: 'idf' },
];

const FIRST_NAMES = [
  ['M.', 'Lucas'],
  ['M.', 'Hugo'],
  ['M.', 'Louis'],
  ['M.', 'Gabriel'],
  ['M.', 'Arthur'],
  ['M.', 'Jules'],
  ['M.', 'Thomas'],
  ['M.', 'Nicolas'],
  ['M.', 'Julien'],
  ['M.', 'Mathieu'],
  ['M.', 'Karim'],
  ['M.', 'Antoine'],
  ['M.', 'Pierre'],
  ['M.', 'Yannick'],
  ['M.', 'Mehdi'],
  ['M.', 'Sébastien'],
  ['M.', 'Olivier'],
  ['M.', 'Jérôme'],
  ['Mme', 'Emma'],
  ['Mme', 'Léa'],
  ['Mme', 'Chloé'],
  ['Mme', 'Camille'],
  ['Mme', 'Manon'],
  ['Mme', 'Sarah'],
  ['Mme', 'Inès'],
  ['Mme', 'Julie'],
  ['Mme', 'Céline'],
  ['Mme', 'Nathalie'],
  ['Mme', 'Sophie'],
  ['Mme', 'Aurélie'],
  ['Mme', 'Amina'],
  ['Mme', 'Hélène'],
  ['Mme', 'Élodie'],
  ['Mme', 'Claire'],
  ['Mme', 'Laura'],
] as const;

const LAST_NAMES = [
  'Martin',
  'Bernard',
  'Dubois',
  'Thomas',
  'Robert',
  'Richard',
  'Petit',
  'Durand',
  'Leroy',
  'Moreau',
  'Simon',
  'Laurent',
  'Lefebvre',
  'Michel',
  'Garcia',
  'David',
  'Bertrand',
  'Roux',
  'Vincent',
  'Fournier',
  'Morel',
  'Girard',
  'André',
  'Lefèvre',
  'Mercier',
  'Dupont',
  'Lambert',
  'Bonnet',
  'François',
  'Martinez',
  'Legrand',
  'Garnier',
  'Faure',
  'Rousseau',
  'Blanc',
  'Guerin',
  'Muller',
  'Henry',
  'Roussel',
  'Nicolas',
  'Perrin',
  'Morin',
  'Mathieu',
  'Clément',
  'Gauthier',
  'Dumont',
  'Lopez',
  'Fontaine',
  'Chevalier',
  'Robin',
  'Benali',
  'Nguyen',
  'Haddad',
  'Le Gall',
  'Caron',
  'Giraud',
  'Barbier',
  'Arnaud',
];

const STREET_TYPES = ['rue', 'avenue', 'boulevard', 'chemin', 'allée', 'impasse', 'place'];
const STREET_NAMES = [
  'de la République',
  'Victor Hugo',
  'Jean Jaurès',
  'des Lilas',
  'du Général de Gaulle',
  'Pasteur',
  'de la Gare',
  'des Écoles',
  'Gambetta',
  'du Moulin',
  'Émile Zola',
  'de Verdun',
  'des Tilleuls',
  'Voltaire',
  'de la Paix',
  'Carnot',
];
const EMAIL_DOMAINS = ['gmail.com', 'orange.fr', 'free.fr', 'laposte.net', 'outlook.fr', 'sfr.fr', 'hotmail.fr', 'yahoo.fr'];
const COMPANY_SUFFIXES = ['SARL', 'SAS', 'EURL'];
const COMPANY_ACTIVITIES = ['Plomberie', 'Transports', 'Paysages', 'Conseil', 'Bâtiment', 'Boulangerie', 'Électricité', 'Services'];

// ---------------------------------------------------------------------------------------------
// Organizations, entities, dealerships (a fixed structure, randomised details)

interface DealershipPlan {
  name: string;
  code: string;
  city: string;
  brands: readonly string[];
  headquarter?: boolean;
}

interface EntityPlan {
  name: string;
  dealerships: readonly DealershipPlan[];
}

interface OrganizationPlan {
  name: string;
  emailDomain: string;
  region: readonly City['region'][];
  /** Share of all reports. */
  weight: number;
  reportTypeWeights: readonly (readonly [ReportType, number])[];
  entities: readonly EntityPlan[];
}

const ORGANIZATION_PLANS: readonly OrganizationPlan[] = [
  {
    name: 'Groupe Mistral Automobiles',
    emailDomain: 'mistral-automobiles.example',
    region: ['sud', 'rhone'],
    weight: 0.65,
    reportTypeWeights: [
      ['inspection', 30],
      ['remote', 28],
      ['counter_inspection', 6],
      ['after_sale', 8],
      ['marketing', 8],
      ['rental', 3],
      ['insurance', 4],
      ['extra_plate', 5],
      ['extra_vin', 4],
      ['extra_scoring', 4],
    ],
    entities: [
      {
        name: 'Mistral Automobiles Provence SAS',
        dealerships: [
          { name: 'Mistral Marseille Prado', code: 'MRS', city: 'Marseille', brands: ['Renault', 'Dacia'], headquarter: true },
          { name: 'Mistral Aix-en-Provence', code: 'AIX', city: 'Aix-en-Provence', brands: ['Peugeot', 'Citroën'] },
          { name: 'Mistral Toulon La Garde', code: 'TLN', city: 'Toulon', brands: ['Volkswagen', 'Audi', 'Skoda'] },
          { name: 'Mistral Avignon Nord', code: 'AVN', city: 'Avignon', brands: ['Toyota', 'Kia'] },
        ],
      },
      {
        name: 'Mistral Automobiles Rhône-Alpes SAS',
        dealerships: [
          { name: 'Mistral Lyon Gerland', code: 'LYG', city: 'Lyon', brands: ['BMW', 'Mercedes-Benz'] },
          { name: 'Mistral Grenoble Sud', code: 'GRE', city: 'Grenoble', brands: ['Hyundai', 'Ford'] },
          { name: 'Mistral Saint-Étienne', code: 'STE', city: 'Saint-Étienne', brands: ['Renault', 'Dacia', 'Fiat'] },
        ],
      },
    ],
  },
  {
    name: 'Horizon Flotte & Leasing',
    emailDomain: 'horizon-flotte.example',
    region: ['idf', 'nord', 'ouest'],
    weight: 0.35,
    reportTypeWeights: [
      ['inspection', 26],
      ['remote', 26],
      ['counter_inspection', 5],
      ['after_sale', 4],
      ['marketing', 5],
      ['rental', 14],
      ['insurance', 8],
      ['extra_plate', 4],
      ['extra_vin', 4],
      ['extra_scoring', 4],
    ],
    entities: [
      {
        name: 'Horizon Leasing France SAS',
        dealerships: [
          {
            name: 'Horizon Paris Vaugirard',
            code: 'PAR',
            city: 'Paris',
            brands: ['Tesla', 'Peugeot', 'Renault', 'Volkswagen'],
            headquarter: true,
          },
          { name: 'Horizon Lille Europe', code: 'LIL', city: 'Lille', brands: ['Peugeot', 'Citroën', 'Kia'] },
          { name: 'Horizon Nantes Atlantique', code: 'NTE', city: 'Nantes', brands: ['Renault', 'Toyota', 'Hyundai', 'Skoda'] },
        ],
      },
    ],
  },
];

const DAY_MS = 86_400_000;
const MONTH_MS = 30.44 * DAY_MS;
const REPORT_HISTORY_MS = 548 * DAY_MS;

// ---------------------------------------------------------------------------------------------
// Small generators

function addMs(date: Date, ms: number): Date {
  return new Date(date.getTime() + ms);
}

function later(a: Date, b: Date): Date {
  return a.getTime() >= b.getTime() ? a : b;
}

function asciiSlug(text: string, separator = '.'): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, separator)
    .replace(new RegExp(`^\\${separator}|\\${separator}$`, 'g'), '');
}

function findCity(name: string): City {
  const city = CITIES.find((candidate) => candidate.name === name);
  if (!city) throw new Error(`Unknown city ${name}`);
  return city;
}

function streetAddress(random: SeededRandom): string {
  return `${random.int(1, 180)} ${random.pick(STREET_TYPES)} ${random.pick(STREET_NAMES)}`;
}

function postalAddress(random: SeededRandom, city: City): PostalAddress {
  return { street: streetAddress(random), zipcode: city.zipcode, city: city.name, country: 'France' };
}

/** Numbers in ARCEP's range reserved for fiction (06 39 98 xx xx), so no real person is reached. */
function fictionalMobile(random: SeededRandom): string {
  return `+3363998${random.digits(4)}`;
}

function luhnCheckDigit(payload: string): number {
  let sum = 0;
  for (let i = 0; i < payload.length; i += 1) {
    let digit = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** A SIREN (9 digits) passing INSEE's Luhn check. */
function generateSiren(random: SeededRandom): string {
  const payload = `${random.int(3, 9)}${random.digits(7)}`;
  return `${payload}${luhnCheckDigit(payload)}`;
}

/** An establishment's SIRET: the company's SIREN, then a NIC making the 14 digits Luhn-valid. */
function generateSiret(random: SeededRandom, siren: string): string {
  const payload = `${siren}0${random.digits(3)}`;
  return `${payload}${luhnCheckDigit(payload)}`;
}

interface Person {
  civility: string;
  firstName: string;
  lastName: string;
}

function person(random: SeededRandom): Person {
  const [civility, firstName] = random.pick(FIRST_NAMES);
  return { civility, firstName, lastName: random.pick(LAST_NAMES) };
}

function createClient(random: SeededRandom, regions: readonly City['region'][]): ClientIdentity {
  const who = person(random);
  const local = CITIES.filter((city) => regions.includes(city.region));
  const city = random.bool(0.9) ? random.pick(local) : random.pick(CITIES);
  const business = random.bool(0.12);
  const emailSuffix = random.bool(0.5) ? String(random.int(1, 99)) : '';
  return {
    foreign: random.bool(0.03),
    optinEmail: random.bool(0.55),
    optinPhone: random.bool(0.4),
    latitude: Math.round((city.latitude + random.float(-0.03, 0.03, 4)) * 1e4) / 1e4,
    longitude: Math.round((city.longitude + random.float(-0.03, 0.03, 4)) * 1e4) / 1e4,
    city: city.name,
    name: `${who.firstName} ${who.lastName}`,
    email: `${asciiSlug(who.firstName)}.${asciiSlug(who.lastName)}${emailSuffix}@${random.pick(EMAIL_DOMAINS)}`,
    phone: fictionalMobile(random),
    address: streetAddress(random),
    zipcode: city.zipcode,
    civility: who.civility,
    businessName: business ? `${random.pick(COMPANY_ACTIVITIES)} ${who.lastName} ${random.pick(COMPANY_SUFFIXES)}` : '',
  };
}

// ---------------------------------------------------------------------------------------------
// Structure

/** Subscriptions renew monthly on the day of the month the entity signed up (28th at the latest). */
function currentQuotaPeriodStart(signedUp: Date, now: Date): Date {
  const day = Math.min(28, signedUp.getUTCDate());
  const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), day));
  return thisMonth.getTime() <= now.getTime() ? thisMonth : new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, day));
}

interface BuiltStructure {
  organizations: OrganizationRow[];
  entities: EntityRow[];
  dealerships: DealershipRow[];
  dealershipCodes: Map<string, string>;
}

function buildStructure(random: SeededRandom, now: Date): BuiltStructure {
  const structure: BuiltStructure = { organizations: [], entities: [], dealerships: [], dealershipCodes: new Map() };
  for (const orgPlan of ORGANIZATION_PLANS) {
    const orgCreated = random.dateBetween(addMs(now, -40 * MONTH_MS), addMs(now, -36 * MONTH_MS));
    const organization: OrganizationRow = {
      id: random.uuid(),
      name: orgPlan.name,
      created_at: orgCreated,
      updated_at: random.dateBetween(orgCreated, now),
    };
    structure.organizations.push(organization);
    let position = 0;
    for (const entityPlan of orgPlan.entities) {
      const entityCreated = addMs(orgCreated, random.int(1, 30) * DAY_MS);
      const entity: EntityRow = {
        id: random.uuid(),
        organization_id: organization.id,
        name: entityPlan.name,
        remote_quota: 0, // set once the reports are known
        remote_quota_used: 0,
        quota_period_start: currentQuotaPeriodStart(entityCreated, now),
        quota_period_months: 1,
        created_at: entityCreated,
        updated_at: entityCreated,
      };
      structure.entities.push(entity);
      const siren = generateSiren(random);
      for (const plan of entityPlan.dealerships) {
        structure.dealerships.push(buildDealership(random, plan, organization, entity, siren, position, now));
        structure.dealershipCodes.set(structure.dealerships[structure.dealerships.length - 1]!.id, plan.code);
        position += 1;
      }
    }
  }
  return structure;
}

function buildDealership(
  random: SeededRandom,
  plan: DealershipPlan,
  organization: OrganizationRow,
  entity: EntityRow,
  siren: string,
  position: number,
  now: Date,
): DealershipRow {
  const created = addMs(entity.created_at, random.int(1, 120) * DAY_MS);
  const slug = asciiSlug(plan.name, '-');
  return {
    id: random.uuid(),
    name: plan.name,
    created_at: created,
    updated_at: random.dateBetween(created, now),
    organization_id: organization.id,
    entity_id: entity.id,
    address: postalAddress(random, findCity(plan.city)),
    logo: `https://cdn.vr-demo.example/dealerships/${slug}/logo.png`,
    illustration_img: `https://cdn.vr-demo.example/dealerships/${slug}/showroom.jpg`,
    more_info: `Concession ${plan.brands.join(', ')}. Ouvert du lundi au samedi, 8h30-12h / 14h-19h.`,
    siret: generateSiret(random, siren),
    position,
    headquarter: plan.headquarter === true,
    brands: [...plan.brands],
  };
}

// ---------------------------------------------------------------------------------------------
// Users

interface UserPlan {
  role: 'admin' | 'manager' | 'inspector' | 'seller';
  position: string;
  dealership: DealershipRow | null;
}

const POSITIONS: Record<UserPlan['role'], string> = {
  admin: 'Administrateur',
  manager: 'Responsable VO',
  inspector: 'Expert automobile',
  seller: 'Conseiller commercial',
};

function userPlans(random: SeededRandom, dealerships: readonly DealershipRow[], admins: number): UserPlan[] {
  const plans: UserPlan[] = Array.from({ length: admins }, () => ({ role: 'admin', position: POSITIONS.admin, dealership: null }));
  for (const dealership of dealerships) {
    const roles: UserPlan['role'][] = ['manager', 'inspector', 'seller'];
    if (random.bool(0.5)) roles.push('inspector');
    for (const role of roles) plans.push({ role, position: POSITIONS[role], dealership });
  }
  return plans;
}

function buildUsers(random: SeededRandom, structure: BuiltStructure, now: Date): UserRow[] {
  const users: UserRow[] = [];
  const reportsStart = addMs(now, -REPORT_HISTORY_MS);
  structure.organizations.forEach((organization, orgIndex) => {
    const orgPlan = ORGANIZATION_PLANS[orgIndex]!;
    const dealerships = structure.dealerships.filter((dealership) => dealership.organization_id === organization.id);
    const firstEntity = structure.entities.find((entity) => entity.organization_id === organization.id)!;
    let creatorId: string | null = null;
    for (const plan of userPlans(random, dealerships, orgIndex === 0 ? 2 : 1)) {
      const who = person(random);
      const joinedLate = plan.role !== 'admin' && random.bool(0.2);
      const created = joinedLate
        ? random.dateBetween(reportsStart, addMs(now, -60 * DAY_MS))
        : random.dateBetween(addMs(organization.created_at, 7 * DAY_MS), addMs(reportsStart, -DAY_MS));
      const active = plan.role === 'admin' || random.bool(0.86);
      const lastActivity = active
        ? addMs(now, -random.int(10, 14 * 24 * 60) * 60_000)
        : random.dateBetween(addMs(later(created, reportsStart), 60 * DAY_MS), addMs(now, -30 * DAY_MS));
      const city = plan.dealership
        ? findCity(plan.dealership.address.city)
        : random.pick(CITIES.filter((c) => orgPlan.region.includes(c.region)));
      const user: UserRow = {
        id: random.uuid(),
        name: `${who.firstName} ${who.lastName}`,
        is_active: active,
        created_at: created,
        updated_at: active ? random.dateBetween(created, now) : lastActivity,
        organization_id: organization.id,
        entity_id: plan.dealership ? plan.dealership.entity_id : firstEntity.id,
        dealership_id: plan.dealership ? plan.dealership.id : null,
        created_by: creatorId,
        role: plan.role,
        photo: random.bool(0.6)
          ? `https://cdn.vr-demo.example/avatars/${asciiSlug(who.firstName, '-')}-${asciiSlug(who.lastName, '-')}.jpg`
          : null,
        phone: fictionalMobile(random),
        position: plan.position,
        email: `${asciiSlug(who.firstName)}.${asciiSlug(who.lastName)}@${orgPlan.emailDomain}`,
        last_activity: lastActivity,
        address: random.bool(0.5) ? postalAddress(random, city) : null,
      };
      users.push(user);
      // The organization's first admin was created by the platform; everyone else by that admin.
      creatorId ??= user.id;
    }
  });
  return users;
}

// ---------------------------------------------------------------------------------------------
// Reports

interface KnownCar {
  vehicle: VehicleIdentity;
  client: ClientIdentity;
}

interface ReportContext {
  random: SeededRandom;
  now: Date;
  structure: BuiltStructure;
  users: readonly UserRow[];
  /** Reports a counter-inspection or a re-inspection can start from, per organization, oldest first. */
  inspectableByOrganization: Map<string, ReportRow[]>;
  carsByReport: Map<string, KnownCar>;
  folderSequence: Map<string, number>;
}

/** Creation instants over the last 18 months, denser recently (the product grows), office hours. */
function reportCreationDates(random: SeededRandom, count: number, now: Date): Date[] {
  const start = now.getTime() - REPORT_HISTORY_MS;
  const dates = Array.from({ length: count }, () => {
    const day = new Date(start + Math.sqrt(random.next()) * (REPORT_HISTORY_MS - DAY_MS));
    const date = new Date(
      Date.UTC(
        day.getUTCFullYear(),
        day.getUTCMonth(),
        day.getUTCDate(),
        random.int(6, 17),
        random.int(0, 59),
        random.int(0, 59),
        random.int(0, 999),
      ),
    );
    if (date.getUTCDay() === 0) date.setUTCDate(date.getUTCDate() - 1);
    return date.getTime() > now.getTime() ? addMs(now, -random.int(1, 600) * 60_000) : date;
  });
  return dates.sort((a, b) => a.getTime() - b.getTime());
}

/** The form version the inspector app was running on that date. */
function appVersionAt(date: Date, now: Date): string {
  const monthsAgo = (now.getTime() - date.getTime()) / MONTH_MS;
  if (monthsAgo > 12) return '4.8.2';
  if (monthsAgo > 6) return '5.0.1';
  if (monthsAgo > 2) return '5.1.0';
  return '5.2.0';
}

function pickProfile(context: ReportContext, dealership: DealershipRow, type: ReportType, createdAt: Date): string | null {
  const { random } = context;
  if (type === 'remote' && random.bool(0.4)) return null;
  const availableAt = (user: UserRow): boolean =>
    user.created_at.getTime() <= createdAt.getTime() &&
    (user.is_active || (user.last_activity !== null && user.last_activity.getTime() >= createdAt.getTime()));
  const orgUsers = context.users.filter((user) => user.organization_id === dealership.organization_id && availableAt(user));
  const local = orgUsers.filter((user) => user.dealership_id === dealership.id && user.role !== 'manager');
  const candidates = local.length > 0 && random.bool(0.9) ? local : orgUsers;
  if (candidates.length > 0) return random.pick(candidates).id;
  const fallback = context.users.filter((user) => user.organization_id === dealership.organization_id && user.role === 'admin');
  return random.pick(fallback).id;
}

function nextFolderName(context: ReportContext, dealershipId: string, createdAt: Date, client: ClientIdentity): string {
  const code = context.structure.dealershipCodes.get(dealershipId) ?? 'VR';
  const sequence = (context.folderSequence.get(dealershipId) ?? 0) + 1;
  context.folderSequence.set(dealershipId, sequence);
  const yymm = createdAt.toISOString().slice(2, 7).replace('-', '');
  const lastName = client.name.split(' ').slice(1).join(' ').toUpperCase();
  return `${code}-${yymm}-${String(sequence).padStart(4, '0')} ${lastName}`;
}

interface VehicleChoice {
  car: KnownCar;
  counterId: string | null;
}

function chooseVehicle(
  context: ReportContext,
  type: ReportType,
  dealership: DealershipRow,
  createdAt: Date,
  regions: readonly City['region'][],
): VehicleChoice | null {
  const { random } = context;
  const earlier = context.inspectableByOrganization.get(dealership.organization_id) ?? [];
  if (type === 'counter_inspection') {
    if (earlier.length === 0) return null;
    const inspected = random.pick(earlier.slice(-150));
    return { car: context.carsByReport.get(inspected.token)!, counterId: inspected.token };
  }
  // The same car comes back now and then (after-sale visit, new trade-in estimate).
  if (earlier.length > 0 && random.bool(0.07)) {
    const previous = context.carsByReport.get(random.pick(earlier).token)!;
    return {
      car: { vehicle: previous.vehicle, client: random.bool(0.6) ? previous.client : createClient(random, regions) },
      counterId: null,
    };
  }
  const brand = random.bool(0.7) ? findBrand(random.pick(dealership.brands)) : undefined;
  return { car: { vehicle: createVehicleIdentity(random, createdAt, brand), client: createClient(random, regions) }, counterId: null };
}

function buildReport(context: ReportContext, createdAt: Date): ReportRow {
  const { random, structure } = context;
  const orgIndex = random.weighted(ORGANIZATION_PLANS.map((plan, index) => [index, plan.weight] as const));
  const orgPlan = ORGANIZATION_PLANS[orgIndex]!;
  const organization = structure.organizations[orgIndex]!;
  const dealership = random.pick(structure.dealerships.filter((candidate) => candidate.organization_id === organization.id));
  let type = random.weighted(orgPlan.reportTypeWeights);
  let choice = chooseVehicle(context, type, dealership, createdAt, orgPlan.region);
  if (choice === null) {
    type = 'inspection';
    choice = chooseVehicle(context, type, dealership, createdAt, orgPlan.region)!;
  }
  const token = random.uuid();
  const profileId = pickProfile(context, dealership, type, createdAt);
  const document = buildReportDocument(random, {
    token,
    type,
    createdAt,
    now: context.now,
    folderName: nextFolderName(context, dealership.id, createdAt, choice.car.client),
    creatorId: profileId,
    dealershipId: dealership.id,
    appVersion: appVersionAt(createdAt, context.now),
    vehicle: choice.car.vehicle,
    client: choice.car.client,
    counterOfToken: choice.counterId,
  });
  const report: ReportRow = {
    token,
    created_at: createdAt,
    updated_at: document.updatedAt,
    organization_id: organization.id,
    entity_id: dealership.entity_id,
    dealership_id: dealership.id,
    profile_id: profileId,
    contact_id: null,
    counter_id: choice.counterId,
    type,
    valid: random.bool(0.95),
    data: document.data,
    state: document.state,
    real_costs: document.real_costs,
  };
  context.carsByReport.set(token, choice.car);
  return report;
}

function buildReports(random: SeededRandom, structure: BuiltStructure, users: readonly UserRow[], count: number, now: Date): ReportRow[] {
  const context: ReportContext = {
    random,
    now,
    structure,
    users,
    inspectableByOrganization: new Map(structure.organizations.map((organization) => [organization.id, []])),
    carsByReport: new Map(),
    folderSequence: new Map(),
  };
  return reportCreationDates(random, count, now).map((createdAt) => {
    const report = buildReport(context, createdAt);
    if (report.type !== 'counter_inspection') context.inspectableByOrganization.get(report.organization_id)!.push(report);
    return report;
  });
}

/** Quota use = remote reports of the current period; one entity is left close to its limit. */
function applyRemoteQuotas(random: SeededRandom, entities: EntityRow[], reports: readonly ReportRow[]): void {
  entities.forEach((entity, index) => {
    const used = reports.filter(
      (report) =>
        report.entity_id === entity.id && report.type === 'remote' && report.created_at.getTime() >= entity.quota_period_start.getTime(),
    ).length;
    entity.remote_quota_used = used;
    entity.remote_quota = index === 1 ? used + 2 : Math.max(100, Math.ceil((used * random.float(1.5, 3)) / 50) * 50);
  });
}

export function buildDemoDataset(options: DemoDatasetOptions = {}): DemoDataset {
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  const now = options.now ?? DEFAULT_DEMO_NOW;
  const reportCount = options.reports ?? DEFAULT_DEMO_REPORT_COUNT;
  const random = new SeededRandom(seed);
  const structure = buildStructure(random, now);
  const users = buildUsers(random, structure, now);
  const reports = buildReports(random, structure, users, reportCount, now);
  applyRemoteQuotas(random, structure.entities, reports);
  return {
    organizations: structure.organizations,
    entities: structure.entities,
    dealerships: structure.dealerships,
    users,
    reports,
  };
}
