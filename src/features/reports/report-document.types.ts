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
 * Every `@Field` names its type explicitly because `npm start` runs through tsx (esbuild), which
 * emits no decorator metadata.
 */
import { Field, Float, ObjectType } from 'type-graphql';
import { JSONResolver } from 'graphql-scalars';

type Json = unknown;

const NULLABLE = { nullable: true } as const;
const NULLABLE_LIST = { nullable: 'itemsAndList' } as const;

// ---------------------------------------------------------------------------------------------
// data.vehicle
// ---------------------------------------------------------------------------------------------

@ObjectType('VehicleEngine', { simpleResolvers: true })
export class VehicleEngine {
  @Field(() => Boolean, NULLABLE)
  original?: boolean | null;
}

@ObjectType('VehicleTires', { simpleResolvers: true })
export class VehicleTires {
  @Field(() => String, NULLABLE)
  FLBrand?: string | null;

  @Field(() => String, NULLABLE)
  FRBrand?: string | null;

  @Field(() => String, NULLABLE)
  RLBrand?: string | null;

  @Field(() => String, NULLABLE)
  RRBrand?: string | null;

  @Field(() => Float, NULLABLE)
  FLDepth?: number | null;

  @Field(() => Float, NULLABLE)
  FRDepth?: number | null;

  @Field(() => Float, NULLABLE)
  RLDepth?: number | null;

  @Field(() => Float, NULLABLE)
  RRDepth?: number | null;

  @Field(() => String, NULLABLE)
  FLDimension?: string | null;

  @Field(() => String, NULLABLE)
  FRDimension?: string | null;

  @Field(() => String, NULLABLE)
  RLDimension?: string | null;

  @Field(() => String, NULLABLE)
  RRDimension?: string | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  providers?: Json[] | null;
}

@ObjectType('HistoryImportInformation', { simpleResolvers: true })
export class HistoryImportInformation {
  @Field(() => Boolean, NULLABLE)
  isImported?: boolean | null;

  @Field(() => String, NULLABLE)
  countryOfOrigin?: string | null;

  /** ISO date-time string. */
  @Field(() => String, NULLABLE)
  importDateToFrance?: string | null;

  /** ISO date-time string. */
  @Field(() => String, NULLABLE)
  firstRegistrationAbroad?: string | null;

  @Field(() => String, NULLABLE)
  originalRegistrationNumber?: string | null;
}

@ObjectType('HistoryAccidentInformation', { simpleResolvers: true })
export class HistoryAccidentInformation {
  @Field(() => [JSONResolver], NULLABLE_LIST)
  accidentHistory?: Json[] | null;

  /** ISO date-time string. */
  @Field(() => String, NULLABLE)
  lastAccidentDate?: string | null;

  @Field(() => Float, NULLABLE)
  numberOfAccidents?: number | null;

  /** ISO date-time string. */
  @Field(() => String, NULLABLE)
  lastResolutionDate?: string | null;
}

@ObjectType('HistoryAdministrativeStatus', { simpleResolvers: true })
export class HistoryAdministrativeStatus {
  @Field(() => Boolean, NULLABLE)
  isStolen?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  isPledged?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  isDriveable?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  hasOppositions?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  hasSuspensions?: boolean | null;
}

@ObjectType('VehicleHistory', { simpleResolvers: true })
export class VehicleHistory {
  @Field(() => Boolean, NULLABLE)
  found?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  searched?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  isCommercialUse?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  isAgriculturalUse?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  isCollectionVehicle?: boolean | null;

  @Field(() => HistoryImportInformation, NULLABLE)
  importInformation?: HistoryImportInformation | null;

  @Field(() => HistoryAccidentInformation, NULLABLE)
  accidentInformation?: HistoryAccidentInformation | null;

  @Field(() => HistoryAdministrativeStatus, NULLABLE)
  administrativeStatus?: HistoryAdministrativeStatus | null;

  @Field(() => String, NULLABLE)
  pdf_url?: string | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  providers?: Json[] | null;

  /** ISO date-time string. */
  @Field(() => String, NULLABLE)
  lastUpdateDate?: string | null;

  @Field(() => Float, NULLABLE)
  numberOfOwners?: number | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  ownershipHistory?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  technicalInspections?: Json[] | null;

  /** ISO date-time string. */
  @Field(() => String, NULLABLE)
  firstRegistrationDate?: string | null;
}

@ObjectType('VehicleLicense', { simpleResolvers: true })
export class VehicleLicense {
  @Field(() => Boolean, NULLABLE)
  found?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  searched?: boolean | null;

  @Field(() => String, NULLABLE)
  number?: string | null;

  @Field(() => String, NULLABLE)
  country?: string | null;

  @Field(() => String, NULLABLE)
  date?: string | null;

  @Field(() => String, NULLABLE)
  state?: string | null;

  @Field(() => String, NULLABLE)
  picture?: string | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  providers?: Json[] | null;
}

@ObjectType('VehicleRoadtest', { simpleResolvers: true })
export class VehicleRoadtest {
  @Field(() => Boolean, NULLABLE)
  done?: boolean | null;

  @Field(() => String, NULLABLE)
  gear?: string | null;

  @Field(() => String, NULLABLE)
  noise?: string | null;

  @Field(() => String, NULLABLE)
  engine?: string | null;

  @Field(() => String, NULLABLE)
  braking?: string | null;

  @Field(() => String, NULLABLE)
  location?: string | null;

  @Field(() => String, NULLABLE)
  steering?: string | null;

  @Field(() => String, NULLABLE)
  instrument?: string | null;

  @Field(() => String, NULLABLE)
  navigation?: string | null;

  @Field(() => String, NULLABLE)
  suspension?: string | null;

  @Field(() => String, NULLABLE)
  performance?: string | null;

  @Field(() => String, NULLABLE)
  heated_seats?: string | null;

  @Field(() => String, NULLABLE)
  air_conditioning?: string | null;
}

@ObjectType('VehicleFinitions', { simpleResolvers: true })
export class VehicleFinitions {
  @Field(() => Boolean, NULLABLE)
  found?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  searched?: boolean | null;

  @Field(() => String, NULLABLE)
  power?: string | null;

  @Field(() => String, NULLABLE)
  marketCode?: string | null;

  @Field(() => String, NULLABLE)
  providerVIN?: string | null;

  @Field(() => String, NULLABLE)
  submodelname?: string | null;

  @Field(() => String, NULLABLE)
  vehiclePrice?: string | null;

  @Field(() => String, NULLABLE)
  basemodelname?: string | null;

  @Field(() => String, NULLABLE)
  containername?: string | null;

  @Field(() => String, NULLABLE)
  vehicletypename?: string | null;

  @Field(() => String, NULLABLE)
  constructionTime?: string | null;

  @Field(() => String, NULLABLE)
  manufacturername?: string | null;

  @Field(() => String, NULLABLE)
  salesdescription?: string | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  packs?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  models?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  series?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  options?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  providers?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  keyOptions?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  providersData?: Json[] | null;
}

@ObjectType('VehicleRegistration', { simpleResolvers: true })
export class VehicleRegistration {
  @Field(() => Boolean, NULLABLE)
  pro?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  found?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  searched?: boolean | null;

  @Field(() => String, NULLABLE)
  COC?: string | null;

  @Field(() => String, NULLABLE)
  date?: string | null;

  @Field(() => String, NULLABLE)
  number?: string | null;

  @Field(() => String, NULLABLE)
  VATType?: string | null;

  @Field(() => String, NULLABLE)
  picture?: string | null;

  @Field(() => String, NULLABLE)
  lastname?: string | null;

  @Field(() => String, NULLABLE)
  firstname?: string | null;

  @Field(() => String, NULLABLE)
  businessName?: string | null;

  @Field(() => String, NULLABLE)
  businessNumber?: string | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  providers?: Json[] | null;
}

@ObjectType('VehicleSpecifications', { simpleResolvers: true })
export class VehicleSpecifications {
  @Field(() => Float, NULLABLE)
  age?: number | null;

  @Field(() => Float, NULLABLE)
  keys?: number | null;

  @Field(() => Float, NULLABLE)
  year?: number | null;

  @Field(() => Float, NULLABLE)
  doors?: number | null;

  @Field(() => Float, NULLABLE)
  power?: number | null;

  @Field(() => Float, NULLABLE)
  seats?: number | null;

  @Field(() => Float, NULLABLE)
  cylinder?: number | null;

  @Field(() => Float, NULLABLE)
  emissionCO2?: number | null;

  @Field(() => Float, NULLABLE)
  fiscalPower?: number | null;

  @Field(() => String, NULLABLE)
  fuel?: string | null;

  @Field(() => String, NULLABLE)
  brand?: string | null;

  @Field(() => String, NULLABLE)
  model?: string | null;

  @Field(() => String, NULLABLE)
  version?: string | null;

  @Field(() => String, NULLABLE)
  automatic?: string | null;

  @Field(() => String, NULLABLE)
  environment?: string | null;

  @Field(() => String, NULLABLE)
  firstRegistration?: string | null;

  @Field(() => String, NULLABLE)
  cnit?: string | null;

  @Field(() => String, NULLABLE)
  logo?: string | null;

  @Field(() => String, NULLABLE)
  weight?: string | null;

  @Field(() => String, NULLABLE)
  motricity?: string | null;

  @Field(() => String, NULLABLE)
  dimensions?: string | null;

  @Field(() => String, NULLABLE)
  consumption?: string | null;

  @Field(() => String, NULLABLE)
  exteriorColor?: string | null;

  @Field(() => String, NULLABLE)
  interiorColor?: string | null;

  @Field(() => Boolean, NULLABLE)
  found?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  searched?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  tunedCar?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  guarantee?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  tintedGlass?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  uniformBody?: boolean | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  providers?: Json[] | null;
}

@ObjectType('Vehicle', { simpleResolvers: true })
export class Vehicle {
  @Field(() => String, NULLABLE)
  vin?: string | null;

  @Field(() => String, NULLABLE)
  date?: string | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  damages?: Json[] | null;

  @Field(() => VehicleEngine, NULLABLE)
  engine?: VehicleEngine | null;

  @Field(() => VehicleTires, NULLABLE)
  tires?: VehicleTires | null;

  @Field(() => VehicleHistory, NULLABLE)
  history?: VehicleHistory | null;

  @Field(() => VehicleLicense, NULLABLE)
  license?: VehicleLicense | null;

  @Field(() => VehicleRoadtest, NULLABLE)
  roadtest?: VehicleRoadtest | null;

  @Field(() => VehicleFinitions, NULLABLE)
  finitions?: VehicleFinitions | null;

  @Field(() => VehicleRegistration, NULLABLE)
  registration?: VehicleRegistration | null;

  @Field(() => VehicleSpecifications, NULLABLE)
  specifications?: VehicleSpecifications | null;
}

// ---------------------------------------------------------------------------------------------
// data.metadata
// ---------------------------------------------------------------------------------------------

@ObjectType('MarketingPhotoOrderItem', { simpleResolvers: true })
export class MarketingPhotoOrderItem {
  @Field(() => String, NULLABLE)
  key?: string | null;

  @Field(() => String, NULLABLE)
  category?: string | null;

  @Field(() => Boolean, NULLABLE)
  required?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  done?: boolean | null;
}

@ObjectType('MarketingAsset', { simpleResolvers: true })
export class MarketingAsset {
  @Field(() => Float, NULLABLE)
  id?: number | null;

  @Field(() => String, NULLABLE)
  link?: string | null;

  @Field(() => String, NULLABLE)
  name?: string | null;

  @Field(() => Boolean, NULLABLE)
  active?: boolean | null;

  @Field(() => [String], NULLABLE_LIST)
  brands?: (string | null)[] | null;

  @Field(() => String, NULLABLE)
  offlineUrl?: string | null;

  @Field(() => String, NULLABLE)
  type?: string | null;

  @Field(() => String, NULLABLE)
  guarantee?: string | null;
}

@ObjectType('MetadataMarketing', { simpleResolvers: true })
export class MetadataMarketing {
  @Field(() => [MarketingPhotoOrderItem], NULLABLE_LIST)
  photos_order?: (MarketingPhotoOrderItem | null)[] | null;

  @Field(() => MarketingAsset, NULLABLE)
  plate?: MarketingAsset | null;

  @Field(() => MarketingAsset, NULLABLE)
  background?: MarketingAsset | null;

  @Field(() => MarketingAsset, NULLABLE)
  banner_bottom?: MarketingAsset | null;

  @Field(() => Boolean, NULLABLE)
  hotspot?: boolean | null;

  /** JSON because the spec only shows it null; its shape when set is unknown. */
  @Field(() => JSONResolver, NULLABLE)
  banner_top?: Json;

  /** JSON because the spec only shows it null; its shape when set is unknown. */
  @Field(() => JSONResolver, NULLABLE)
  custom_image?: Json;
}

@ObjectType('MetadataIndividual', { simpleResolvers: true })
export class MetadataIndividual {
  @Field(() => Boolean, NULLABLE)
  foreign?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  optinEmail?: boolean | null;

  @Field(() => Boolean, NULLABLE)
  optinPhone?: boolean | null;

  @Field(() => Float, NULLABLE)
  latitude?: number | null;

  @Field(() => Float, NULLABLE)
  longitude?: number | null;

  @Field(() => String, NULLABLE)
  city?: string | null;

  @Field(() => String, NULLABLE)
  name?: string | null;

  @Field(() => String, NULLABLE)
  email?: string | null;

  @Field(() => String, NULLABLE)
  phone?: string | null;

  @Field(() => String, NULLABLE)
  address?: string | null;

  @Field(() => String, NULLABLE)
  zipcode?: string | null;

  @Field(() => String, NULLABLE)
  civility?: string | null;

  @Field(() => String, NULLABLE)
  repriseDate?: string | null;

  @Field(() => String, NULLABLE)
  businessName?: string | null;
}

@ObjectType('MetadataCustomQuestion', { simpleResolvers: true })
export class MetadataCustomQuestion {
  @Field(() => Float, NULLABLE)
  id?: number | null;

  @Field(() => String, NULLABLE)
  type?: string | null;

  @Field(() => String, NULLABLE)
  answer?: string | null;

  @Field(() => [String], NULLABLE_LIST)
  options?: (string | null)[] | null;

  @Field(() => String, NULLABLE)
  question?: string | null;

  @Field(() => Boolean, NULLABLE)
  required?: boolean | null;
}

@ObjectType('ReportMetadata', { simpleResolvers: true })
export class ReportMetadata {
  /** ISO date-time string. */
  @Field(() => String, NULLABLE)
  date?: string | null;

  @Field(() => String, NULLABLE)
  name?: string | null;

  @Field(() => String, NULLABLE)
  type?: string | null;

  @Field(() => String, NULLABLE)
  version?: string | null;

  /** UUID string. */
  @Field(() => String, NULLABLE)
  token?: string | null;

  /** UUID string. */
  @Field(() => String, NULLABLE)
  creator?: string | null;

  /** UUID string. */
  @Field(() => String, NULLABLE)
  dealership?: string | null;

  @Field(() => MetadataMarketing, NULLABLE)
  marketing?: MetadataMarketing | null;

  @Field(() => MetadataIndividual, NULLABLE)
  individual?: MetadataIndividual | null;

  @Field(() => String, NULLABLE)
  data_provider?: string | null;

  @Field(() => String, NULLABLE)
  importedToken?: string | null;

  @Field(() => String, NULLABLE)
  inspection_link?: string | null;

  @Field(() => String, NULLABLE)
  pricing_provider?: string | null;

  @Field(() => String, NULLABLE)
  internal_comment?: string | null;

  @Field(() => String, NULLABLE)
  auctioneer_comment?: string | null;

  @Field(() => String, NULLABLE)
  externalMarketingLink?: string | null;

  @Field(() => String, NULLABLE)
  externalMarketingToken?: string | null;

  @Field(() => [MetadataCustomQuestion], NULLABLE_LIST)
  custom_questions?: (MetadataCustomQuestion | null)[] | null;
}

// ---------------------------------------------------------------------------------------------
// data.visualization and data
// ---------------------------------------------------------------------------------------------

@ObjectType('Visualization', { simpleResolvers: true })
export class Visualization {
  @Field(() => [JSONResolver], NULLABLE_LIST)
  audios?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  videos?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  damages?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  three_d?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  documents?: Json[] | null;

  @Field(() => [JSONResolver], NULLABLE_LIST)
  marketing?: Json[] | null;
}

@ObjectType('ReportData', { simpleResolvers: true })
export class ReportData {
  @Field(() => Vehicle, NULLABLE)
  vehicle?: Vehicle | null;

  @Field(() => ReportMetadata, NULLABLE)
  metadata?: ReportMetadata | null;

  /** Content not shown by the spec. */
  @Field(() => JSONResolver, NULLABLE)
  valuations?: Json;

  @Field(() => Visualization, NULLABLE)
  visualization?: Visualization | null;
}

// ---------------------------------------------------------------------------------------------
// state (spec 3) and real_costs
// ---------------------------------------------------------------------------------------------

export { REPORT_STATE_KEYS, type ReportStateKey } from './report-state-keys';

@ObjectType('StateEntry', { simpleResolvers: true })
export class StateEntry {
  @Field(() => String, NULLABLE)
  name?: string | null;

  @Field(() => Float, NULLABLE)
  order?: number | null;

  @Field(() => Boolean, NULLABLE)
  status?: boolean | null;

  @Field(() => String, NULLABLE)
  description?: string | null;

  /** ISO date-time string. */
  @Field(() => String, NULLABLE)
  date?: string | null;
}

@ObjectType('ReportState', { simpleResolvers: true })
export class ReportState {
  @Field(() => StateEntry, NULLABLE)
  folder_created?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_estimated?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_accepted?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_rejected?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_instock?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_sold?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_closed?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_completed?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_archived?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_relisted?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_remarketed?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  folder_rehabilitated?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  counter_inspected?: StateEntry | null;

  @Field(() => StateEntry, NULLABLE)
  customer_notified?: StateEntry | null;
}

@ObjectType('RealCosts', { simpleResolvers: true })
export class RealCosts {
  @Field(() => Float, NULLABLE)
  salesPrice?: number | null;

  @Field(() => Float, NULLABLE)
  repairCosts?: number | null;
}
