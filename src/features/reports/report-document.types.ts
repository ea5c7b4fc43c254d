/**
 * GraphQL object types of the full report's JSON documents: `data`, `state` and `real_costs`
 * (spec 2.3 and 3).
 *
 * These describe stored JSON, not database rows, so choices lean towards never failing on a
 * stored value:
 * - every field is nullable: the spec does not say which are required and any may be missing;
 * - date-time and uuid leaves are `String`, not `DateTimeISO`/`UUID`, because a stored document
 *   may hold any string there and a stricter scalar would turn it into a field error;
 * - arrays whose item shape the spec does not show are `[JSON]`, never a guessed object type;
 * - list items are nullable too (`itemsAndList`), so a stray `null` inside a stored array does
 *   not null out its parent.
 *
 * No resolvers: the documents are plain objects, so default property access resolves every field
 * and a missing sub-object resolves to null. `simpleResolvers` leaves that to graphql-js's default
 * resolver instead of type-graphql's per-field wrapper (the full report selects ~400 fields;
 * test/graphql/field-resolvers.test.ts keeps every object type so).
 *
 * Each type is a table of its fields' GraphQL types rather than a decorated class: no TypeScript
 * code reads the documents through these types (the seed's are generated from the schema,
 * src/seed/report-document.generated.ts), and the table names each type explicitly, which `npm
 * start` needs (tsx, i.e. esbuild, emits no decorator metadata).
 */
import type { GraphQLScalarType } from 'graphql';
import { JSONResolver } from 'graphql-scalars';
import { Field, Float, ObjectType, type ClassType } from 'type-graphql';
import { REPORT_STATE_KEYS } from './report-state-keys';

export { REPORT_STATE_KEYS, type ReportStateKey } from './report-state-keys';

/** A field's type; in brackets, a list of it. */
type FieldType = ClassType | GraphQLScalarType | [ClassType | GraphQLScalarType];

/** An object type of a stored document, its fields in this order. */
function documentType(name: string, fields: Record<string, FieldType>): ClassType {
  const type = class {};
  for (const [field, fieldType] of Object.entries(fields)) {
    Field(() => fieldType, { nullable: Array.isArray(fieldType) ? 'itemsAndList' : true })(type.prototype, field);
  }
  ObjectType(name, { simpleResolvers: true })(type);
  return type;
}

// data.vehicle
const VehicleEngine = documentType('VehicleEngine', {
  original: Boolean,
});

const VehicleTires = documentType('VehicleTires', {
  FLBrand: String,
  FRBrand: String,
  RLBrand: String,
  RRBrand: String,
  FLDepth: Float,
  FRDepth: Float,
  RLDepth: Float,
  RRDepth: Float,
  FLDimension: String,
  FRDimension: String,
  RLDimension: String,
  RRDimension: String,
  providers: [JSONResolver],
});

const HistoryImportInformation = documentType('HistoryImportInformation', {
  isImported: Boolean,
  countryOfOrigin: String,
  importDateToFrance: String, // ISO date-time
  firstRegistrationAbroad: String, // ISO date-time
  originalRegistrationNumber: String,
});

const HistoryAccidentInformation = documentType('HistoryAccidentInformation', {
  accidentHistory: [JSONResolver],
  lastAccidentDate: String, // ISO date-time
  numberOfAccidents: Float,
  lastResolutionDate: String, // ISO date-time
});

const HistoryAdministrativeStatus = documentType('HistoryAdministrativeStatus', {
  isStolen: Boolean,
  isPledged: Boolean,
  isDriveable: Boolean,
  hasOppositions: Boolean,
  hasSuspensions: Boolean,
});

const VehicleHistory = documentType('VehicleHistory', {
  found: Boolean,
  searched: Boolean,
  isCommercialUse: Boolean,
  isAgriculturalUse: Boolean,
  isCollectionVehicle: Boolean,
  importInformation: HistoryImportInformation,
  accidentInformation: HistoryAccidentInformation,
  administrativeStatus: HistoryAdministrativeStatus,
  pdf_url: String,
  providers: [JSONResolver],
  lastUpdateDate: String, // ISO date-time
  numberOfOwners: Float,
  ownershipHistory: [JSONResolver],
  technicalInspections: [JSONResolver],
  firstRegistrationDate: String, // ISO date-time
});

const VehicleLicense = documentType('VehicleLicense', {
  found: Boolean,
  searched: Boolean,
  number: String,
  country: String,
  date: String,
  state: String,
  picture: String,
  providers: [JSONResolver],
});

const VehicleRoadtest = documentType('VehicleRoadtest', {
  done: Boolean,
  gear: String,
  noise: String,
  engine: String,
  braking: String,
  location: String,
  steering: String,
  instrument: String,
  navigation: String,
  suspension: String,
  performance: String,
  heated_seats: String,
  air_conditioning: String,
});

const VehicleFinitions = documentType('VehicleFinitions', {
  found: Boolean,
  searched: Boolean,
  power: String,
  marketCode: String,
  providerVIN: String,
  submodelname: String,
  vehiclePrice: String,
  basemodelname: String,
  containername: String,
  vehicletypename: String,
  constructionTime: String,
  manufacturername: String,
  salesdescription: String,
  packs: [JSONResolver],
  models: [JSONResolver],
  series: [JSONResolver],
  options: [JSONResolver],
  providers: [JSONResolver],
  keyOptions: [JSONResolver],
  providersData: [JSONResolver],
});

const VehicleRegistration = documentType('VehicleRegistration', {
  pro: Boolean,
  found: Boolean,
  searched: Boolean,
  COC: String,
  date: String,
  number: String,
  VATType: String,
  picture: String,
  lastname: String,
  firstname: String,
  businessName: String,
  businessNumber: String,
  providers: [JSONResolver],
});

const VehicleSpecifications = documentType('VehicleSpecifications', {
  age: Float,
  keys: Float,
  year: Float,
  doors: Float,
  power: Float,
  seats: Float,
  cylinder: Float,
  emissionCO2: Float,
  fiscalPower: Float,
  fuel: String,
  brand: String,
  model: String,
  version: String,
  automatic: String,
  environment: String,
  firstRegistration: String,
  cnit: String,
  logo: String,
  weight: String,
  motricity: String,
  dimensions: String,
  consumption: String,
  exteriorColor: String,
  interiorColor: String,
  found: Boolean,
  searched: Boolean,
  tunedCar: Boolean,
  guarantee: Boolean,
  tintedGlass: Boolean,
  uniformBody: Boolean,
  providers: [JSONResolver],
});

const Vehicle = documentType('Vehicle', {
  vin: String,
  date: String,
  damages: [JSONResolver],
  engine: VehicleEngine,
  tires: VehicleTires,
  history: VehicleHistory,
  license: VehicleLicense,
  roadtest: VehicleRoadtest,
  finitions: VehicleFinitions,
  registration: VehicleRegistration,
  specifications: VehicleSpecifications,
});

// data.metadata
const MarketingPhotoOrderItem = documentType('MarketingPhotoOrderItem', {
  key: String,
  category: String,
  required: Boolean,
  done: Boolean,
});

const MarketingAsset = documentType('MarketingAsset', {
  id: Float,
  link: String,
  name: String,
  active: Boolean,
  brands: [String],
  offlineUrl: String,
  type: String,
  guarantee: String,
});

const MetadataMarketing = documentType('MetadataMarketing', {
  photos_order: [MarketingPhotoOrderItem],
  plate: MarketingAsset,
  background: MarketingAsset,
  banner_bottom: MarketingAsset,
  hotspot: Boolean,
  // JSON because the spec only shows these null; their shape when set is unknown.
  banner_top: JSONResolver,
  custom_image: JSONResolver,
});

const MetadataIndividual = documentType('MetadataIndividual', {
  foreign: Boolean,
  optinEmail: Boolean,
  optinPhone: Boolean,
  latitude: Float,
  longitude: Float,
  city: String,
  name: String,
  email: String,
  phone: String,
  address: String,
  zipcode: String,
  civility: String,
  repriseDate: String,
  businessName: String,
});

const MetadataCustomQuestion = documentType('MetadataCustomQuestion', {
  id: Float,
  type: String,
  answer: String,
  options: [String],
  question: String,
  required: Boolean,
});

const ReportMetadata = documentType('ReportMetadata', {
  date: String, // ISO date-time
  name: String,
  type: String,
  version: String,
  token: String, // UUID
  creator: String, // UUID
  dealership: String, // UUID
  marketing: MetadataMarketing,
  individual: MetadataIndividual,
  data_provider: String,
  importedToken: String,
  inspection_link: String,
  pricing_provider: String,
  internal_comment: String,
  auctioneer_comment: String,
  externalMarketingLink: String,
  externalMarketingToken: String,
  custom_questions: [MetadataCustomQuestion],
});

// data.visualization and data
const Visualization = documentType('Visualization', {
  audios: [JSONResolver],
  videos: [JSONResolver],
  damages: [JSONResolver],
  three_d: [JSONResolver],
  documents: [JSONResolver],
  marketing: [JSONResolver],
});

export const ReportData = documentType('ReportData', {
  vehicle: Vehicle,
  metadata: ReportMetadata,
  valuations: JSONResolver, // content not shown by the spec
  visualization: Visualization,
});

// state (spec 3) and real_costs
const StateEntry = documentType('StateEntry', {
  name: String,
  order: Float,
  status: Boolean,
  description: String,
  date: String, // ISO date-time
});

export const ReportState = documentType('ReportState', Object.fromEntries(REPORT_STATE_KEYS.map((key) => [key, StateEntry])));

export const RealCosts = documentType('RealCosts', {
  salesPrice: Float,
  repairCosts: Float,
});
