/**
 * Builds the `data`, `state` and `real_costs` documents of one demo report, in the shape of
 * spec sections 2.3 and 3 (field names exactly as the spec writes them).
 */
import type { ReportType } from '../generated/prisma/client';
import type * as Schema from './report-document.generated';
import { REPORT_STATE_KEYS, type ReportStateKey } from '../features/reports/report-state-keys';
import {
  type SeededRandom,
  type VehicleBrand,
  type VehicleModel,
  type VehicleVersion,
  VEHICLE_CATALOGUE,
  generatePlate,
  generateVin,
} from './vehicles';

// ---------------------------------------------------------------------------------------------
// Document types (spec 2.3 and 3), derived from the GraphQL object types that serve the documents
// (`report-document.generated.ts`, generated from schema.graphql by `npm run codegen`): a field
// added to those classes must be written here before the seed compiles again. The schema makes
// every field nullable (a stored document may lack any); the seed writes every one, and null only
// where listed. Where the schema says JSON (array items the spec does not show, `valuations`),
// the shape below is the demo's choice. Type aliases rather than interfaces: aliases get an
// implicit index signature, so the documents stay assignable to Prisma's JSON input types.

/** `T` as the seed writes it: every field non-null, except those named in `Nullable`. */
type Complete<T, Nullable extends keyof T = never> = { [K in keyof T]-?: K extends Nullable ? T[K] : NonNullable<T[K]> };

/**
 * `T` with some fields narrowed to what the seed writes there. Each key must be one of T's and
 * each type assignable to T's, so a narrowing can never contradict the schema.
 */
type Narrowed<T, Shapes extends { [K in keyof Shapes]: K extends keyof T ? T[K] : never }> = Omit<T, keyof Shapes> & Shapes;

export type ProviderRecord = {
  name: string;
  date: string;
};

export type Damage = {
  zone: string;
  type: string;
  severity: 'minor' | 'moderate' | 'major';
  cost: number;
  photo: string;
};

export type VehicleTires = Narrowed<Complete<Schema.VehicleTires>, { providers: ProviderRecord[] }>;

export type VehicleHistory = Narrowed<
  Complete<Schema.VehicleHistory>,
  {
    importInformation: Complete<Schema.HistoryImportInformation, 'importDateToFrance' | 'firstRegistrationAbroad'>;
    accidentInformation: Narrowed<
      Complete<Schema.HistoryAccidentInformation, 'lastAccidentDate' | 'lastResolutionDate'>,
      { accidentHistory: { date: string; type: string; severity: string; repaired: boolean }[] }
    >;
    administrativeStatus: Complete<Schema.HistoryAdministrativeStatus>;
    providers: ProviderRecord[];
    ownershipHistory: { from: string; to: string | null; ownerType: 'particulier' | 'professionnel'; department: string }[];
    technicalInspections: { date: string; result: 'favorable' | 'défavorable'; mileage: number; center: string }[];
  }
>;

export type VehicleLicense = Narrowed<Complete<Schema.VehicleLicense>, { providers: ProviderRecord[] }>;

export type VehicleRoadtest = Complete<Schema.VehicleRoadtest>;

export type VehicleFinitions = Narrowed<
  Complete<Schema.VehicleFinitions>,
  {
    packs: { code: string; name: string; price: number }[];
    models: { id: number; name: string }[];
    series: { code: string; name: string }[];
    options: { code: string; name: string; price: number }[];
    providers: ProviderRecord[];
    keyOptions: string[];
    providersData: { provider: string; reference: string; date: string }[];
  }
>;

export type VehicleRegistration = Narrowed<Complete<Schema.VehicleRegistration>, { providers: ProviderRecord[] }>;

export type VehicleSpecifications = Narrowed<Complete<Schema.VehicleSpecifications>, { providers: ProviderRecord[] }>;

export type ReportVehicle = Narrowed<
  Complete<Schema.Vehicle>,
  {
    damages: Damage[];
    engine: Complete<Schema.VehicleEngine>;
    tires: VehicleTires;
    history: VehicleHistory;
    license: VehicleLicense;
    roadtest: VehicleRoadtest;
    finitions: VehicleFinitions;
    registration: VehicleRegistration;
    specifications: VehicleSpecifications;
  }
>;

export type MarketingAsset = Complete<Schema.MarketingAsset>;

export type MetadataMarketing = Narrowed<
  Complete<Schema.MetadataMarketing, 'banner_top' | 'custom_image'>,
  {
    photos_order: Complete<Schema.MarketingPhotoOrderItem>[];
    plate: MarketingAsset;
    background: MarketingAsset;
    banner_bottom: MarketingAsset;
    banner_top: null;
    custom_image: null;
  }
>;

export type MetadataIndividual = Complete<Schema.MetadataIndividual>;

export type CustomQuestion = Complete<Schema.MetadataCustomQuestion>;

/** `creator` is null for leads (remote reports created without a user, see api-behaviour.md). */
export type ReportMetadata = Narrowed<
  Complete<Schema.ReportMetadata, 'creator'>,
  { type: ReportType; marketing: MetadataMarketing; individual: MetadataIndividual; custom_questions: CustomQuestion[] }
>;

export type Valuation = {
  price: number;
  min: number;
  max: number;
  provider: string;
  date: string;
};

export type ReportValuations = {
  currency: 'EUR';
  mileage: number;
  b2b: Valuation;
  b2c: Valuation;
};

export type MediaItem = {
  id: string;
  url: string;
  label: string;
};

export type ReportVisualization = Narrowed<
  Complete<Schema.Visualization>,
  {
    audios: (MediaItem & { durationSeconds: number })[];
    videos: (MediaItem & { durationSeconds: number })[];
    damages: (MediaItem & { zone: string })[];
    three_d: (MediaItem & { provider: string })[];
    documents: (MediaItem & { type: string })[];
    marketing: (MediaItem & { order: number })[];
  }
>;

export type ReportData = Narrowed<
  Complete<Schema.ReportData>,
  { vehicle: ReportVehicle; metadata: ReportMetadata; valuations: ReportValuations; visualization: ReportVisualization }
>;

export type RealCosts = Complete<Schema.RealCosts>;

// ---------------------------------------------------------------------------------------------
// State (spec 3)

export const STATE_KEYS = REPORT_STATE_KEYS;
export type StateKey = ReportStateKey;

/** `date` (ISO 8601) is null while the step has not happened. */
export type StateEntry = Complete<Schema.StateEntry, 'date'>;

export type ReportState = { [K in keyof Schema.ReportState]-?: StateEntry };

/** The keys the seed iterates over (REPORT_STATE_KEYS) are the schema's: neither may gain one alone. */
const _stateKeysAreTheSchemas: [StateKey, keyof Schema.ReportState] extends [keyof Schema.ReportState, StateKey] ? true : never = true;

/** The steps a folder goes through, in this order; each one's date is ≥ the previous one's. */
export const STATE_MAIN_CHAIN: readonly StateKey[] = [
  'folder_created',
  'folder_estimated',
  'folder_accepted',
  'folder_instock',
  'folder_sold',
  'folder_closed',
  'folder_completed',
  'folder_archived',
];

const STATE_DESCRIPTIONS: Record<StateKey, [name: string, description: string]> = {
  folder_created: ['Dossier créé', 'Le dossier a été créé.'],
  folder_estimated: ['Dossier estimé', 'Une estimation de reprise a été calculée.'],
  folder_accepted: ['Offre acceptée', 'Le client a accepté l’offre de reprise.'],
  folder_rejected: ['Offre refusée', 'Le client a refusé l’offre de reprise.'],
  folder_instock: ['Véhicule en stock', 'Le véhicule est entré dans le stock du point de vente.'],
  folder_sold: ['Véhicule vendu', 'Le véhicule a été vendu.'],
  folder_closed: ['Dossier clôturé', 'Le dossier est clôturé.'],
  folder_completed: ['Dossier complet', 'Toutes les étapes du dossier sont terminées.'],
  folder_archived: ['Dossier archivé', 'Le dossier a été archivé.'],
  folder_relisted: ['Remis en vente', 'Le véhicule a été remis en vente.'],
  folder_remarketed: ['Remarketing', 'Le véhicule a été proposé à la revente B2B.'],
  folder_rehabilitated: ['Véhicule reconditionné', 'Le véhicule a été reconditionné.'],
  counter_inspected: ['Contre-expertise', 'Une contre-expertise a été réalisée.'],
  customer_notified: ['Client notifié', 'Le client a reçu le lien du rapport.'],
};

export interface ReportDocument {
  data: ReportData;
  state: ReportState;
  real_costs: RealCosts;
  /** Last change of the report: the latest state date, never after `now`. */
  updatedAt: Date;
}

// ---------------------------------------------------------------------------------------------
// Inputs

/** A physical car; reused as is when the same car is inspected again. */
export interface VehicleIdentity {
  brand: VehicleBrand;
  model: VehicleModel;
  version: VehicleVersion;
  vin: string;
  plate: string;
  modelYear: number;
  firstRegistration: Date;
  exteriorColor: string;
  interiorColor: string;
  keys: number;
  /** Null for a car first registered in France. */
  importedFrom: { country: string; originalRegistrationNumber: string; importDate: Date } | null;
  /** Kilometres driven per year, so mileage grows between two inspections of the same car. */
  yearlyMileage: number;
}

/** The report's client, `data.metadata.individual` without the trade-in date. */
export type ClientIdentity = Omit<MetadataIndividual, 'repriseDate'>;

export interface ReportDocumentInput {
  token: string;
  type: ReportType;
  createdAt: Date;
  /** Upper bound of every date in the document. */
  now: Date;
  folderName: string;
  creatorId: string | null;
  dealershipId: string;
  appVersion: string;
  vehicle: VehicleIdentity;
  client: ClientIdentity;
  /** Token of the inspected report, for counter-inspections. */
  counterOfToken: string | null;
}

// ---------------------------------------------------------------------------------------------
// Reference data

const ASSET_BASE_URL = 'https://cdn.vr-demo.example';
const APP_BASE_URL = 'https://app.vr-demo.example';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const YEAR_MS = 365.25 * DAY_MS;

const EXTERIOR_COLORS = [
  'Blanc Glacier',
  'Gris Platine',
  'Noir Étoilé',
  'Bleu Iron',
  'Rouge Flamme',
  'Gris Titanium',
  'Blanc Nacré',
  'Bleu Céleste',
  'Argent Métal',
];
const INTERIOR_COLORS = ['Tissu noir', 'Tissu gris', 'Cuir noir', 'Similicuir gris', 'Alcantara noir', 'Cuir beige'];
const TIRE_BRANDS = ['Michelin', 'Continental', 'Bridgestone', 'Pirelli', 'Goodyear', 'Hankook', 'Dunlop', 'Nokian'];
const IMPORT_COUNTRIES: readonly [country: string, platePrefix: string][] = [
  ['Allemagne', 'M-'],
  ['Belgique', '1-'],
  ['Espagne', ''],
  ['Italie', 'G'],
];
const DAMAGE_ZONES = [
  'Pare-chocs avant',
  'Pare-chocs arrière',
  'Aile avant gauche',
  'Aile avant droite',
  'Porte avant gauche',
  'Porte arrière droite',
  'Capot',
  'Hayon',
  'Jante avant droite',
  'Pare-brise',
  'Rétroviseur gauche',
  'Siège conducteur',
];
const DAMAGE_TYPES: readonly [type: string, baseCost: number][] = [
  ['Rayure', 120],
  ['Bosse', 260],
  ['Éclat', 80],
  ['Impact', 150],
  ['Jante frottée', 90],
  ['Usure', 180],
  ['Fissure', 420],
];
const INSPECTION_CENTERS = [
  'Autosur Lyon 7',
  'Dekra Marseille Prado',
  'Securitest Nantes Est',
  'Norisko Lille Centre',
  'Autovision Toulouse Purpan',
  'Dekra Paris 15',
];
const ROADTEST_GRADES = ['ok', 'ok', 'ok', 'ok', 'ok', 'to_check', 'ko'];
const ROADTEST_LOCATIONS = ['Parcours urbain 6 km', 'Parcours mixte 12 km', 'Voie rapide 15 km', 'Parking du point de vente'];
const PACKS: readonly { code: string; name: string; price: number }[] = [
  { code: 'PK01', name: 'Pack Hiver', price: 450 },
  { code: 'PK02', name: 'Pack Sécurité', price: 900 },
  { code: 'PK03', name: 'Pack City', price: 600 },
  { code: 'PK04', name: 'Pack Techno', price: 1200 },
];
const OPTIONS: readonly { code: string; name: string; price: number }[] = [
  { code: 'OP11', name: 'Peinture métallisée', price: 650 },
  { code: 'OP12', name: 'Toit ouvrant panoramique', price: 1100 },
  { code: 'OP13', name: 'Caméra de recul', price: 400 },
  { code: 'OP14', name: 'Sièges chauffants', price: 350 },
  { code: 'OP15', name: 'Jantes alliage 18"', price: 800 },
  { code: 'OP16', name: 'Attelage', price: 700 },
  { code: 'OP17', name: 'Affichage tête haute', price: 600 },
];
const PHOTO_SLOTS: readonly [key: string, category: string, required: boolean][] = [
  ['front_left', 'exterior', true],
  ['front', 'exterior', true],
  ['rear', 'exterior', true],
  ['rear_right', 'exterior', true],
  ['dashboard', 'interior', true],
  ['trunk', 'interior', false],
  ['odometer', 'documents', true],
];
const INTERNAL_COMMENTS = [
  'Véhicule propre, entretien suivi en concession.',
  'Prévoir un lustrage avant mise en vitrine.',
  'Client pressé, relancer sous 48 h.',
  'Carnet d’entretien complet, factures fournies.',
  'Odeur de tabac légère dans l’habitacle.',
  'Double des clés à récupérer chez le client.',
];
const AUCTIONEER_COMMENTS = [
  'Bon état général, quelques rayures d’usage.',
  'Carrosserie à reprendre côté droit.',
  'Pneumatiques avant à remplacer.',
  'Aucun défaut mécanique constaté à l’essai.',
  'Véhicule très bien présenté.',
];
const BRAND_CNIT_CODES: Readonly<Record<string, string>> = {
  Renault: 'REN',
  Peugeot: 'PGT',
  Citroën: 'CTR',
  Volkswagen: 'VWG',
  BMW: 'BMW',
  'Mercedes-Benz': 'MCD',
  Audi: 'AUD',
  Toyota: 'TYT',
  Tesla: 'TSL',
  Dacia: 'DAC',
  Ford: 'FRD',
  Fiat: 'FAT',
  Kia: 'KIA',
  Hyundai: 'HYU',
  Skoda: 'SKD',
};

// ---------------------------------------------------------------------------------------------
// Helpers

function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function minDate(a: Date, b: Date): Date {
  return a.getTime() <= b.getTime() ? a : b;
}

function addMs(date: Date, ms: number): Date {
  return new Date(date.getTime() + ms);
}

function wholeYearsBetween(from: Date, to: Date): number {
  return Math.max(0, Math.floor((to.getTime() - from.getTime()) / YEAR_MS));
}

function providers(names: readonly string[], at: Date): ProviderRecord[] {
  return names.map((name) => ({ name, date: at.toISOString() }));
}

function critAir(version: VehicleVersion, year: number): string {
  if (version.fuel === 'Électrique') return "Crit'Air 0";
  if (version.fuel === 'Diesel') return year >= 2011 ? "Crit'Air 2" : "Crit'Air 3";
  return year >= 2011 ? "Crit'Air 1" : "Crit'Air 2";
}

function mileageAt(vehicle: VehicleIdentity, date: Date): number {
  const years = Math.max(0.1, (date.getTime() - vehicle.firstRegistration.getTime()) / YEAR_MS);
  return Math.round(years * vehicle.yearlyMileage);
}

/** Used-car price: about 15 % lost the first year, then 10 % a year, less for high mileage. */
function estimatedMarketPrice(vehicle: VehicleIdentity, date: Date): number {
  const years = Math.max(0, (date.getTime() - vehicle.firstRegistration.getTime()) / YEAR_MS);
  const ageFactor = years < 1 ? 1 - 0.15 * years : 0.85 * 0.9 ** (years - 1);
  const mileagePenalty = Math.max(0.7, 1 - Math.max(0, mileageAt(vehicle, date) - 15_000 * years) / 400_000);
  return Math.round((vehicle.version.price * ageFactor * mileagePenalty) / 50) * 50;
}

// ---------------------------------------------------------------------------------------------
// Vehicle identity

/** A new car of the catalogue, registered before `referenceDate`. */
export function createVehicleIdentity(random: SeededRandom, referenceDate: Date, brand?: VehicleBrand): VehicleIdentity {
  const chosenBrand = brand ?? random.pick(VEHICLE_CATALOGUE);
  const chosenModel = random.pick(chosenBrand.models);
  const chosenVersion = random.pick(chosenModel.versions);
  const lastYear = Math.min(chosenModel.years[1], referenceDate.getUTCFullYear());
  const modelYear = random.int(Math.min(chosenModel.years[0], lastYear), lastYear);
  const registrationEarliest = new Date(Date.UTC(modelYear - 1, 9, 1));
  const registrationLatest = minDate(new Date(Date.UTC(modelYear, 11, 31)), addMs(referenceDate, -30 * DAY_MS));
  const firstRegistration = random.dateBetween(registrationEarliest, registrationLatest);
  const imported = random.bool(0.12);
  const importOrigin = random.pick(IMPORT_COUNTRIES);
  return {
    brand: chosenBrand,
    model: chosenModel,
    version: chosenVersion,
    vin: generateVin(random, chosenBrand, modelYear),
    plate: generatePlate(random, imported ? referenceDate.getUTCFullYear() : firstRegistration.getUTCFullYear()),
    modelYear,
    firstRegistration,
    exteriorColor: random.pick(EXTERIOR_COLORS),
    interiorColor: random.pick(INTERIOR_COLORS),
    keys: random.weighted([
      [2, 0.8],
      [1, 0.2],
    ] as const),
    importedFrom: imported
      ? {
          country: importOrigin[0],
          originalRegistrationNumber: `${importOrigin[1]}${random.digits(4)}${random.pick(['AB', 'KL', 'XT', 'RZ'])}`,
          importDate: random.dateBetween(
            firstRegistration,
            minDate(addMs(firstRegistration, 3 * YEAR_MS), addMs(referenceDate, -7 * DAY_MS)),
          ),
        }
      : null,
    yearlyMileage: random.int(6_000, 24_000),
  };
}

// ---------------------------------------------------------------------------------------------
// data.vehicle

function buildDamages(random: SeededRandom, token: string, mileage: number): Damage[] {
  const count =
    random.weighted([
      [0, 0.2],
      [1, 0.25],
      [2, 0.25],
      [3, 0.15],
      [4, 0.1],
      [6, 0.05],
    ] as const) + (mileage > 120_000 ? 1 : 0);
  return Array.from({ length: count }, (_, index) => {
    const [type, baseCost] = random.pick(DAMAGE_TYPES);
    const severity = random.weighted([
      ['minor', 0.6],
      ['moderate', 0.3],
      ['major', 0.1],
    ] as const);
    const multiplier = severity === 'minor' ? 1 : severity === 'moderate' ? 2 : 4;
    return {
      zone: random.pick(DAMAGE_ZONES),
      type,
      severity,
      cost: Math.round(baseCost * multiplier * random.float(0.8, 1.3)),
      photo: `${ASSET_BASE_URL}/reports/${token}/damages/${index + 1}.jpg`,
    };
  });
}

function buildTires(random: SeededRandom, vehicle: VehicleIdentity, mileage: number): VehicleTires {
  const frontBrand = random.pick(TIRE_BRANDS);
  const rearBrand = random.bool(0.75) ? frontBrand : random.pick(TIRE_BRANDS);
  const wear = Math.min(5.5, (mileage % 40_000) / 8_000);
  const depth = (): number => Math.max(1.6, Math.round((8 - wear + random.float(-0.8, 0.8)) * 10) / 10);
  const dimension = vehicle.model.tireDimension;
  return {
    FLBrand: frontBrand,
    FRBrand: frontBrand,
    RLBrand: rearBrand,
    RRBrand: rearBrand,
    FLDepth: depth(),
    FRDepth: depth(),
    RLDepth: depth(),
    RRDepth: depth(),
    FLDimension: dimension,
    FRDimension: dimension,
    RLDimension: dimension,
    RRDimension: dimension,
    providers: [],
  };
}

function buildTechnicalInspections(random: SeededRandom, vehicle: VehicleIdentity, at: Date): VehicleHistory['technicalInspections'] {
  const inspections: VehicleHistory['technicalInspections'] = [];
  // French roadworthiness test: first at 4 years, then every 2 years.
  for (let years = 4; vehicle.firstRegistration.getTime() + years * YEAR_MS < at.getTime(); years += 2) {
    const date = addMs(vehicle.firstRegistration, years * YEAR_MS - random.int(0, 60) * DAY_MS);
    inspections.push({
      date: isoDate(date),
      result: random.bool(0.9) ? 'favorable' : 'défavorable',
      mileage: mileageAt(vehicle, date),
      center: random.pick(INSPECTION_CENTERS),
    });
  }
  return inspections;
}

function buildOwnershipHistory(
  random: SeededRandom,
  vehicle: VehicleIdentity,
  at: Date,
  owners: number,
): VehicleHistory['ownershipHistory'] {
  const span = at.getTime() - vehicle.firstRegistration.getTime();
  return Array.from({ length: owners }, (_, index) => {
    const from = addMs(vehicle.firstRegistration, (span * index) / owners);
    const to = index === owners - 1 ? null : addMs(vehicle.firstRegistration, (span * (index + 1)) / owners);
    return {
      from: isoDate(from),
      to: to ? isoDate(to) : null,
      ownerType: index === 0 && random.bool(0.4) ? 'professionnel' : 'particulier',
      department: String(random.pick([13, 31, 33, 44, 59, 67, 69, 75, 92, 94])),
    };
  });
}

function buildHistory(random: SeededRandom, vehicle: VehicleIdentity, token: string, at: Date): VehicleHistory {
  const age = wholeYearsBetween(vehicle.firstRegistration, at);
  const owners = Math.min(4, 1 + random.int(0, Math.floor(age / 3)));
  const accidents = random.weighted([
    [0, 0.75],
    [1, 0.2],
    [2, 0.05],
  ] as const);
  const accidentHistory = Array.from({ length: accidents }, () => {
    const date = random.dateBetween(vehicle.firstRegistration, at);
    return {
      date: date.toISOString(),
      type: random.pick(['collision', 'grêle', 'bris de glace', 'stationnement']),
      severity: random.pick(['léger', 'moyen']),
      repaired: true,
    };
  }).sort((a, b) => a.date.localeCompare(b.date));
  const lastAccident = accidentHistory[accidentHistory.length - 1];
  const lastResolution = lastAccident ? minDate(addMs(new Date(lastAccident.date), random.int(5, 60) * DAY_MS), at) : null;
  const imported = vehicle.importedFrom;
  return {
    found: true,
    searched: true,
    isCommercialUse: random.bool(0.08),
    isAgriculturalUse: false,
    isCollectionVehicle: false,
    importInformation: {
      isImported: imported !== null,
      countryOfOrigin: imported ? imported.country : 'France',
      importDateToFrance: imported ? imported.importDate.toISOString() : null,
      firstRegistrationAbroad: imported ? vehicle.firstRegistration.toISOString() : null,
      originalRegistrationNumber: imported ? imported.originalRegistrationNumber : '',
    },
    accidentInformation: {
      accidentHistory,
      lastAccidentDate: lastAccident ? lastAccident.date : null,
      numberOfAccidents: accidents,
      lastResolutionDate: lastResolution ? lastResolution.toISOString() : null,
    },
    administrativeStatus: {
      isStolen: false,
      isPledged: random.bool(0.04),
      isDriveable: random.bool(0.97),
      hasOppositions: random.bool(0.02),
      hasSuspensions: false,
    },
    pdf_url: `${ASSET_BASE_URL}/reports/${token}/histovec.pdf`,
    providers: providers(['histovec'], at),
    lastUpdateDate: at.toISOString(),
    numberOfOwners: owners,
    ownershipHistory: buildOwnershipHistory(random, vehicle, at, owners),
    technicalInspections: buildTechnicalInspections(random, vehicle, at),
    firstRegistrationDate: vehicle.firstRegistration.toISOString(),
  };
}

function buildLicense(random: SeededRandom, vehicle: VehicleIdentity, token: string, at: Date): VehicleLicense {
  const registeredInFrance = vehicle.importedFrom ? vehicle.importedFrom.importDate : vehicle.firstRegistration;
  return {
    found: true,
    searched: true,
    number: vehicle.plate,
    country: 'FR',
    date: isoDate(registeredInFrance),
    state: random.bool(0.97) ? 'valid' : 'pending',
    picture: `${ASSET_BASE_URL}/reports/${token}/license.jpg`,
    providers: providers(['plate-reader'], at),
  };
}

function buildRoadtest(random: SeededRandom, done: boolean): VehicleRoadtest {
  const grade = (): string => (done ? random.pick(ROADTEST_GRADES) : 'not_tested');
  return {
    done,
    gear: grade(),
    noise: grade(),
    engine: grade(),
    braking: grade(),
    location: done ? random.pick(ROADTEST_LOCATIONS) : '',
    steering: grade(),
    instrument: grade(),
    navigation: grade(),
    suspension: grade(),
    performance: grade(),
    heated_seats: done && random.bool(0.4) ? 'ok' : 'na',
    air_conditioning: grade(),
  };
}

function buildFinitions(random: SeededRandom, vehicle: VehicleIdentity, at: Date): VehicleFinitions {
  const { brand, model: vehicleModel, version: vehicleVersion } = vehicle;
  const options = random.sample(OPTIONS, random.int(1, 3));
  return {
    found: true,
    searched: true,
    power: `${vehicleVersion.power} ch`,
    marketCode: `${brand.name.slice(0, 2).toUpperCase()}${random.digits(4)}`,
    providerVIN: vehicle.vin,
    submodelname: vehicleVersion.name,
    vehiclePrice: String(vehicleVersion.price),
    basemodelname: vehicleModel.name,
    containername: `${brand.name} ${vehicleModel.name}`,
    vehicletypename: vehicleModel.body,
    constructionTime: `${vehicleModel.years[0]}-${vehicleModel.years[1]}`,
    manufacturername: brand.manufacturer,
    salesdescription: `${brand.name} ${vehicleModel.name} ${vehicleVersion.name}`,
    packs: random.sample(PACKS, random.int(0, 2)),
    models: [{ id: random.int(10_000, 99_999), name: vehicleModel.name }],
    series: [{ code: `S${vehicle.modelYear}`, name: `${vehicleModel.name} (${vehicle.modelYear})` }],
    options,
    providers: providers(['autovista'], at),
    keyOptions: options.slice(0, 2).map((option) => option.name),
    providersData: [{ provider: 'autovista', reference: `AV-${random.digits(8)}`, date: at.toISOString() }],
  };
}

function buildRegistration(
  random: SeededRandom,
  vehicle: VehicleIdentity,
  client: ClientIdentity,
  token: string,
  at: Date,
): VehicleRegistration {
  const professional = client.businessName !== '';
  const [firstname = '', ...lastnameParts] = client.name.split(' ');
  return {
    pro: professional,
    found: true,
    searched: true,
    COC: `e${random.pick([1, 2, 4, 9, 11])}*2007/46*${random.digits(4)}*${random.digits(2)}`,
    date: isoDate(vehicle.importedFrom ? vehicle.importedFrom.importDate : vehicle.firstRegistration),
    number: vehicle.plate,
    VATType: professional ? 'TVA récupérable' : 'TVA non récupérable',
    picture: `${ASSET_BASE_URL}/reports/${token}/registration.jpg`,
    lastname: lastnameParts.join(' '),
    firstname,
    businessName: client.businessName,
    businessNumber: professional ? random.digits(9) : '',
    providers: providers(['siv'], at),
  };
}

function buildSpecifications(random: SeededRandom, vehicle: VehicleIdentity, at: Date): VehicleSpecifications {
  const { brand, model: vehicleModel, version: vehicleVersion } = vehicle;
  const [length, width, height] = vehicleModel.dimensions;
  const electric = vehicleVersion.fuel === 'Électrique';
  return {
    age: wholeYearsBetween(vehicle.firstRegistration, at),
    keys: vehicle.keys,
    year: vehicle.modelYear,
    doors: vehicleModel.doors,
    power: vehicleVersion.power,
    seats: vehicleModel.seats,
    cylinder: vehicleVersion.cylinder,
    emissionCO2: vehicleVersion.emissionCO2,
    fiscalPower: vehicleVersion.fiscalPower,
    fuel: vehicleVersion.fuel,
    brand: brand.name,
    model: vehicleModel.name,
    version: vehicleVersion.name,
    automatic: vehicleVersion.automatic ? 'Automatique' : 'Manuelle',
    environment: critAir(vehicleVersion, vehicle.modelYear),
    firstRegistration: isoDate(vehicle.firstRegistration),
    cnit: `M10${BRAND_CNIT_CODES[brand.name] ?? 'XXX'}VP${random.digits(3)}${random.pick(['A', 'B', 'C', 'E', 'G'])}${random.digits(3)}`,
    logo: `${ASSET_BASE_URL}/brands/${slug(brand.name)}.svg`,
    weight: `${vehicleModel.weightKg} kg`,
    motricity: vehicleModel.motricity,
    dimensions: `${length} x ${width} x ${height} mm`,
    consumption: electric ? `${vehicleVersion.consumption} kWh/100 km` : `${vehicleVersion.consumption} l/100 km`,
    exteriorColor: vehicle.exteriorColor,
    interiorColor: vehicle.interiorColor,
    found: true,
    searched: true,
    tunedCar: random.bool(0.02),
    guarantee: wholeYearsBetween(vehicle.firstRegistration, at) < (brand.name === 'Kia' ? 7 : 2),
    tintedGlass: random.bool(0.25),
    uniformBody: random.bool(0.9),
    providers: providers(['siv', 'autovista'], at),
  };
}

function buildVehicle(random: SeededRandom, input: ReportDocumentInput, inspectedAt: Date): ReportVehicle {
  const { vehicle, token } = input;
  const mileage = mileageAt(vehicle, inspectedAt);
  const roadtestDone = input.type === 'inspection' || input.type === 'counter_inspection' || (input.type !== 'remote' && random.bool(0.3));
  return {
    vin: vehicle.vin,
    date: inspectedAt.toISOString(),
    damages: buildDamages(random, token, mileage),
    engine: { original: random.bool(0.98) },
    tires: buildTires(random, vehicle, mileage),
    history: buildHistory(random, vehicle, token, inspectedAt),
    license: buildLicense(random, vehicle, token, inspectedAt),
    roadtest: buildRoadtest(random, roadtestDone),
    finitions: buildFinitions(random, vehicle, inspectedAt),
    registration: buildRegistration(random, vehicle, input.client, token, inspectedAt),
    specifications: buildSpecifications(random, vehicle, inspectedAt),
  };
}

// ---------------------------------------------------------------------------------------------
// data.metadata

function marketingAsset(random: SeededRandom, id: number, type: string, brands: string[]): MarketingAsset {
  const name = `${type}-${id}`;
  return {
    id,
    link: `${ASSET_BASE_URL}/marketing/${name}.png`,
    name,
    active: true,
    brands,
    offlineUrl: `${ASSET_BASE_URL}/offline/${name}.png`,
    type,
    guarantee: random.pick(['6 mois', '12 mois', '24 mois']),
  };
}

function buildMarketing(random: SeededRandom, input: ReportDocumentInput, photosDone: boolean): MetadataMarketing {
  const brands = [input.vehicle.brand.name];
  return {
    photos_order: PHOTO_SLOTS.map(([key, category, required]) => ({
      key,
      category,
      required,
      done: photosDone || (required && random.bool(0.5)),
    })),
    plate: marketingAsset(random, random.int(100, 199), 'plate', brands),
    background: marketingAsset(random, random.int(200, 299), 'background', brands),
    banner_bottom: marketingAsset(random, random.int(300, 399), 'banner_bottom', brands),
    hotspot: random.bool(0.3),
    banner_top: null,
    custom_image: null,
  };
}

function buildCustomQuestions(random: SeededRandom): CustomQuestion[] {
  return [
    {
      id: 1,
      type: 'select',
      question: 'Le véhicule a-t-il un carnet d’entretien ?',
      options: ['Oui', 'Non', 'Partiel'],
      answer: random.pick(['Oui', 'Oui', 'Partiel', 'Non']),
      required: true,
    },
    {
      id: 2,
      type: 'text',
      question: 'Date de disponibilité souhaitée',
      options: [],
      answer: random.pick(['Immédiate', 'Sous 15 jours', 'Fin du mois']),
      required: false,
    },
  ];
}

function buildMetadata(random: SeededRandom, input: ReportDocumentInput, repriseDate: Date): ReportMetadata {
  const { token } = input;
  const marketedExternally = input.type === 'marketing' || random.bool(0.15);
  return {
    date: input.createdAt.toISOString(),
    name: input.folderName,
    type: input.type,
    version: input.appVersion,
    token,
    creator: input.creatorId,
    dealership: input.dealershipId,
    marketing: buildMarketing(random, input, input.type === 'marketing'),
    individual: { ...input.client, repriseDate: isoDate(repriseDate) },
    data_provider: random.pick(['siv', 'autovista', 'histovec']),
    importedToken: input.counterOfToken ?? '',
    inspection_link: `${APP_BASE_URL}/reports/${token}`,
    pricing_provider: random.pick(['autovista', 'indicata']),
    internal_comment: random.bool(0.6) ? random.pick(INTERNAL_COMMENTS) : '',
    auctioneer_comment: random.bool(0.5) ? random.pick(AUCTIONEER_COMMENTS) : '',
    externalMarketingLink: marketedExternally ? `https://annonces.vr-demo.example/vo/${token.slice(0, 8)}` : '',
    externalMarketingToken: marketedExternally ? token.replace(/-/g, '').slice(0, 16) : '',
    custom_questions: buildCustomQuestions(random),
  };
}

// ---------------------------------------------------------------------------------------------
// data.valuations, data.visualization, real_costs

function valuation(price: number, provider: string, at: Date): Valuation {
  return {
    price,
    min: Math.round((price * 0.93) / 50) * 50,
    max: Math.round((price * 1.07) / 50) * 50,
    provider,
    date: at.toISOString(),
  };
}

function buildValuations(random: SeededRandom, vehicle: VehicleIdentity, at: Date, provider: string): ReportValuations {
  const b2c = estimatedMarketPrice(vehicle, at);
  const b2b = Math.round((b2c * random.float(0.78, 0.86)) / 50) * 50;
  return {
    currency: 'EUR',
    mileage: mileageAt(vehicle, at),
    b2b: valuation(b2b, provider, at),
    b2c: valuation(b2c, provider, at),
  };
}

function buildVisualization(random: SeededRandom, token: string, damages: Damage[], photosDone: boolean): ReportVisualization {
  const media = (kind: string, index: number, extension: string): MediaItem => ({
    id: `${kind}-${index + 1}`,
    url: `${ASSET_BASE_URL}/reports/${token}/${kind}/${index + 1}.${extension}`,
    label: `${kind} ${index + 1}`,
  });
  return {
    audios: random.bool(0.2)
      ? [{ ...media('audio', 0, 'm4a'), label: 'Bruit moteur au démarrage', durationSeconds: random.int(8, 40) }]
      : [],
    videos: random.bool(0.3) ? [{ ...media('video', 0, 'mp4'), label: 'Tour du véhicule', durationSeconds: random.int(30, 120) }] : [],
    damages: damages.map((damage, index) => ({
      ...media('damage', index, 'jpg'),
      label: `${damage.type} - ${damage.zone}`,
      zone: damage.zone,
    })),
    three_d: random.bool(0.15) ? [{ ...media('three_d', 0, 'glb'), label: 'Vue 360°', provider: 'spinview' }] : [],
    documents: [
      { ...media('document', 0, 'pdf'), label: 'Certificat d’immatriculation', type: 'registration' },
      { ...media('document', 1, 'pdf'), label: 'Rapport d’inspection', type: 'report' },
    ],
    marketing: photosDone
      ? PHOTO_SLOTS.slice(0, 5).map(([key], index) => ({ ...media('marketing', index, 'jpg'), label: key, order: index + 1 }))
      : [],
  };
}

// ---------------------------------------------------------------------------------------------
// state

type StateDates = Partial<Record<StateKey, Date>>;

/** How far the folder went: each step happens a few hours to a few days after the previous one. */
function planStateDates(random: SeededRandom, input: ReportDocumentInput): StateDates {
  const dates: StateDates = { folder_created: input.createdAt };
  let cursor = input.createdAt;
  const step = (key: StateKey, minHours: number, maxHours: number): boolean => {
    const next = addMs(cursor, random.int(minHours * 60, maxHours * 60) * 60_000);
    if (next.getTime() > input.now.getTime()) return false;
    dates[key] = next;
    cursor = next;
    return true;
  };

  if (input.type === 'remote' && step('customer_notified', 0, 1)) cursor = input.createdAt;
  if (input.type === 'extra_plate' || input.type === 'extra_vin' || input.type === 'extra_scoring') return dates;
  if (!random.bool(0.85) || !step('folder_estimated', 1, 72)) return dates;
  if (input.type === 'counter_inspection') step('counter_inspected', 1, 48);
  if (random.bool(0.25)) {
    if (step('folder_rejected', 2, 240) && random.bool(0.3)) {
      if (step('folder_relisted', 24, 720) && input.type === 'marketing') step('folder_remarketed', 24, 240);
    }
    return dates;
  }
  if (!random.bool(0.8) || !step('folder_accepted', 2, 240)) return dates;
  if (!random.bool(0.85) || !step('folder_instock', 24, 240)) return dates;
  if ((input.type === 'after_sale' || random.bool(0.2)) && random.bool(0.5)) step('folder_rehabilitated', 24, 336);
  if (input.type === 'marketing' && random.bool(0.6)) step('folder_remarketed', 24, 336);
  if (!random.bool(0.75) || !step('folder_sold', 72, 1440)) return dates;
  if (!random.bool(0.85) || !step('folder_closed', 24, 480)) return dates;
  if (!random.bool(0.8) || !step('folder_completed', 1, 240)) return dates;
  if (random.bool(0.4)) step('folder_archived', 720, 4320);
  return dates;
}

function buildState(dates: StateDates): ReportState {
  const entries = STATE_KEYS.map((key, index): [StateKey, StateEntry] => {
    const date = dates[key];
    const [name, description] = STATE_DESCRIPTIONS[key];
    return [key, { name, order: index + 1, status: date !== undefined, description, date: date ? date.toISOString() : null }];
  });
  return Object.fromEntries(entries) as ReportState;
}

function latestDate(dates: StateDates): Date {
  return Object.values(dates).reduce((latest, date) => (date.getTime() > latest.getTime() ? date : latest));
}

// ---------------------------------------------------------------------------------------------

export function buildReportDocument(random: SeededRandom, input: ReportDocumentInput): ReportDocument {
  const stateDates = planStateDates(random, input);
  const lastStateChange = latestDate(stateDates);
  // Edits after the last state change (photos, comments) push updated_at a little further.
  const updatedAt = minDate(addMs(lastStateChange, random.int(0, 36) * HOUR_MS), input.now);
  const inspectedAt = input.createdAt;
  const vehicle = buildVehicle(random, input, inspectedAt);
  const metadata = buildMetadata(random, input, addMs(inspectedAt, random.int(3, 45) * DAY_MS));
  const valuations = buildValuations(random, input.vehicle, inspectedAt, metadata.pricing_provider);
  const photosDone = metadata.marketing.photos_order.every((photo) => photo.done);
  const repairCosts = vehicle.damages.reduce((sum, damage) => sum + damage.cost, 0);
  const sold = stateDates.folder_sold !== undefined;
  return {
    data: {
      vehicle,
      metadata,
      valuations,
      visualization: buildVisualization(random, input.token, vehicle.damages, photosDone),
    },
    state: buildState(stateDates),
    real_costs: {
      salesPrice: sold ? Math.round((valuations.b2c.price * random.float(0.95, 1.02)) / 10) * 10 : 0,
      repairCosts,
    },
    updatedAt,
  };
}
