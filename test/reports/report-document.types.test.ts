import 'reflect-metadata';
import { graphql, getNamedType, isObjectType, type GraphQLNamedType, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { buildSchema, Ctx, Query, Resolver } from 'type-graphql';
import { REPORT_STATE_KEYS, RealCosts, ReportData, ReportState } from '../../src/features/reports/report-document.types';
import type * as Schema from '../../src/seed/report-document.generated';

interface SampleContext {
  doc: unknown;
  state: unknown;
  costs: unknown;
}

@Resolver()
class ReportDocumentSampleResolver {
  @Query(() => ReportData, { nullable: true })
  doc(@Ctx() context: SampleContext): unknown {
    return context.doc;
  }

  @Query(() => ReportState, { nullable: true })
  state(@Ctx() context: SampleContext): unknown {
    return context.state;
  }

  @Query(() => RealCosts, { nullable: true })
  costs(@Ctx() context: SampleContext): unknown {
    return context.costs;
  }
}

/** Every leaf of `data` listed in spec 2.3, written out by hand so a missing or misspelled field fails. */
const SPEC_REPORT_DATA_LEAF_PATHS = [
  // data.vehicle
  'vehicle.vin',
  'vehicle.date',
  'vehicle.damages',
  'vehicle.engine.original',
  ...['FL', 'FR', 'RL', 'RR'].flatMap((wheel) => [
    `vehicle.tires.${wheel}Brand`,
    `vehicle.tires.${wheel}Depth`,
    `vehicle.tires.${wheel}Dimension`,
  ]),
  'vehicle.tires.providers',
  'vehicle.history.found',
  'vehicle.history.searched',
  'vehicle.history.isCommercialUse',
  'vehicle.history.isAgriculturalUse',
  'vehicle.history.isCollectionVehicle',
  'vehicle.history.importInformation.isImported',
  'vehicle.history.importInformation.countryOfOrigin',
  'vehicle.history.importInformation.importDateToFrance',
  'vehicle.history.importInformation.firstRegistrationAbroad',
  'vehicle.history.importInformation.originalRegistrationNumber',
  'vehicle.history.accidentInformation.accidentHistory',
  'vehicle.history.accidentInformation.lastAccidentDate',
  'vehicle.history.accidentInformation.numberOfAccidents',
  'vehicle.history.accidentInformation.lastResolutionDate',
  'vehicle.history.administrativeStatus.isStolen',
  'vehicle.history.administrativeStatus.isPledged',
  'vehicle.history.administrativeStatus.isDriveable',
  'vehicle.history.administrativeStatus.hasOppositions',
  'vehicle.history.administrativeStatus.hasSuspensions',
  'vehicle.history.pdf_url',
  'vehicle.history.providers',
  'vehicle.history.lastUpdateDate',
  'vehicle.history.numberOfOwners',
  'vehicle.history.ownershipHistory',
  'vehicle.history.technicalInspections',
  'vehicle.history.firstRegistrationDate',
  ...['found', 'searched', 'number', 'country', 'date', 'state', 'picture', 'providers'].map((field) => `vehicle.license.${field}`),
  ...[
    'done',
    'gear',
    'noise',
    'engine',
    'braking',
    'location',
    'steering',
    'instrument',
    'navigation',
    'suspension',
    'performance',
    'heated_seats',
    'air_conditioning',
  ].map((field) => `vehicle.roadtest.${field}`),
  ...[
    'found',
    'searched',
    'power',
    'marketCode',
    'providerVIN',
    'submodelname',
    'vehiclePrice',
    'basemodelname',
    'containername',
    'vehicletypename',
    'constructionTime',
    'manufacturername',
    'salesdescription',
    'packs',
    'models',
    'series',
    'options',
    'providers',
    'keyOptions',
    'providersData',
  ].map((field) => `vehicle.finitions.${field}`),
  ...[
    'pro',
    'found',
    'searched',
    'COC',
    'date',
    'number',
    'VATType',
    'picture',
    'lastname',
    'firstname',
    'businessName',
    'businessNumber',
    'providers',
  ].map((field) => `vehicle.registration.${field}`),
  ...[
    'age',
    'keys',
    'year',
    'doors',
    'power',
    'seats',
    'cylinder',
    'emissionCO2',
    'fiscalPower',
    'fuel',
    'brand',
    'model',
    'version',
    'automatic',
    'environment',
    'firstRegistration',
    'cnit',
    'logo',
    'weight',
    'motricity',
    'dimensions',
    'consumption',
    'exteriorColor',
    'interiorColor',
    'found',
    'searched',
    'tunedCar',
    'guarantee',
    'tintedGlass',
    'uniformBody',
    'providers',
  ].map((field) => `vehicle.specifications.${field}`),
  // data.metadata
  ...[
    'date',
    'name',
    'type',
    'version',
    'token',
    'creator',
    'dealership',
    'data_provider',
    'importedToken',
    'inspection_link',
    'pricing_provider',
    'internal_comment',
    'auctioneer_comment',
    'externalMarketingLink',
    'externalMarketingToken',
  ].map((field) => `metadata.${field}`),
  ...['key', 'category', 'required', 'done'].map((field) => `metadata.marketing.photos_order.${field}`),
  ...['plate', 'background', 'banner_bottom'].flatMap((asset) =>
    ['id', 'link', 'name', 'active', 'brands', 'offlineUrl', 'type', 'guarantee'].map((field) => `metadata.marketing.${asset}.${field}`),
  ),
  'metadata.marketing.hotspot',
  'metadata.marketing.banner_top',
  'metadata.marketing.custom_image',
  ...[
    'foreign',
    'optinEmail',
    'optinPhone',
    'latitude',
    'longitude',
    'city',
    'name',
    'email',
    'phone',
    'address',
    'zipcode',
    'civility',
    'repriseDate',
    'businessName',
  ].map((field) => `metadata.individual.${field}`),
  ...['id', 'type', 'answer', 'options', 'question', 'required'].map((field) => `metadata.custom_questions.${field}`),
  // data.valuations and data.visualization
  'valuations',
  ...['audios', 'videos', 'damages', 'three_d', 'documents', 'marketing'].map((field) => `visualization.${field}`),
];

const SPEC_STATE_KEYS = [
  'folder_created',
  'folder_estimated',
  'folder_accepted',
  'folder_rejected',
  'folder_instock',
  'folder_sold',
  'folder_closed',
  'folder_completed',
  'folder_archived',
  'folder_relisted',
  'folder_remarketed',
  'folder_rehabilitated',
  'counter_inspected',
  'customer_notified',
];

function marketingAsset(id: number, name: string) {
  return {
    id,
    link: `https://cdn.example.com/marketing/${name}.png`,
    name,
    active: true,
    brands: ['Peugeot', 'Renault'],
    offlineUrl: `file:///offline/${name}.png`,
    type: 'image',
    guarantee: '12 months',
  };
}

function buildSampleReportData() {
  return {
    vehicle: {
      vin: 'VF1RFB00X12345678',
      date: '2024-03-01',
      damages: [{ zone: 'front', severity: 2 }],
      engine: { original: true },
      tires: {
        FLBrand: 'Michelin',
        FRBrand: 'Michelin',
        RLBrand: 'Continental',
        RRBrand: 'Continental',
        FLDepth: 5.5,
        FRDepth: 5.2,
        RLDepth: 3.1,
        RRDepth: 3,
        FLDimension: '205/55 R16',
        FRDimension: '205/55 R16',
        RLDimension: '205/55 R16',
        RRDimension: '205/55 R16',
        providers: ['tyre-scan'],
      },
      history: {
        found: true,
        searched: true,
        isCommercialUse: false,
        isAgriculturalUse: false,
        isCollectionVehicle: false,
        importInformation: {
          isImported: true,
          countryOfOrigin: 'DE',
          importDateToFrance: '2021-06-15T00:00:00Z',
          firstRegistrationAbroad: '2019-02-10T00:00:00Z',
          originalRegistrationNumber: 'B-XY-123',
        },
        accidentInformation: {
          accidentHistory: [{ date: '2020-05-01', cost: 1200 }],
          lastAccidentDate: '2020-05-01T00:00:00Z',
          numberOfAccidents: 1,
          lastResolutionDate: '2020-07-01T00:00:00Z',
        },
        administrativeStatus: {
          isStolen: false,
          isPledged: false,
          isDriveable: true,
          hasOppositions: false,
          hasSuspensions: false,
        },
        pdf_url: 'https://history.example.com/report.pdf',
        providers: [{ name: 'histovec' }],
        lastUpdateDate: '2024-02-28T12:00:00Z',
        numberOfOwners: 2,
        ownershipHistory: [{ from: '2019-02-10', to: '2021-06-15' }],
        technicalInspections: [{ date: '2023-01-10', result: 'ok' }],
        firstRegistrationDate: '2019-02-10T00:00:00Z',
      },
      license: {
        found: true,
        searched: true,
        number: 'AB-123-CD',
        country: 'FR',
        date: '2021-06-15',
        state: 'valid',
        picture: 'https://cdn.example.com/plate.jpg',
        providers: ['plate-ocr'],
      },
      roadtest: {
        done: true,
        gear: 'ok',
        noise: 'none',
        engine: 'ok',
        braking: 'ok',
        location: 'Lyon',
        steering: 'ok',
        instrument: 'ok',
        navigation: 'ok',
        suspension: 'ok',
        performance: 'good',
        heated_seats: 'ok',
        air_conditioning: 'ok',
      },
      finitions: {
        found: true,
        searched: true,
        power: '130',
        marketCode: 'MC-42',
        providerVIN: 'VF1RFB00X12345678',
        submodelname: 'Intens',
        vehiclePrice: '24500',
        basemodelname: 'Megane',
        containername: 'Megane IV',
        vehicletypename: 'Berline',
        constructionTime: '2018-2022',
        manufacturername: 'Renault',
        salesdescription: 'Megane Intens TCe 130',
        packs: [{ code: 'P1' }],
        models: [{ code: 'M1' }],
        series: [{ code: 'S1' }],
        options: [{ code: 'O1', price: 500 }],
        providers: ['jato'],
        keyOptions: ['GPS'],
        providersData: [{ raw: true }],
      },
      registration: {
        pro: false,
        found: true,
        searched: true,
        COC: 'COC-1',
        date: '2019-02-10',
        number: 'AB-123-CD',
        VATType: 'TTC',
        picture: 'https://cdn.example.com/registration.jpg',
        lastname: 'Martin',
        firstname: 'Claire',
        businessName: 'Garage Martin',
        businessNumber: '12345678900011',
        providers: [{ name: 'siv' }],
      },
      specifications: {
        age: 5,
        keys: 2,
        year: 2019,
        doors: 5,
        power: 130,
        seats: 5,
        cylinder: 1332,
        emissionCO2: 119.5,
        fiscalPower: 7,
        fuel: 'petrol',
        brand: 'Renault',
        model: 'Megane',
        version: 'Intens TCe 130',
        automatic: 'no',
        environment: 'Crit Air 1',
        firstRegistration: '2019-02-10',
        cnit: 'M10RENVP000A123',
        logo: 'https://cdn.example.com/renault.png',
        weight: '1300',
        motricity: 'FWD',
        dimensions: '4359x1814x1447',
        consumption: '5.3',
        exteriorColor: 'grey',
        interiorColor: 'black',
        found: true,
        searched: true,
        tunedCar: false,
        guarantee: true,
        tintedGlass: false,
        uniformBody: true,
        providers: ['spec-db'],
      },
    },
    metadata: {
      date: '2024-03-01T09:30:00Z',
      name: 'Folder Martin',
      type: 'inspection',
      version: 'v2',
      token: '4f9a2c1e-7d3b-4a55-9c1e-2b7f0d8e6a11',
      creator: '0b1c2d3e-4f50-4617-8293-a4b5c6d7e8f9',
      dealership: '9e8d7c6b-5a49-4837-a261-504f3e2d1c0b',
      marketing: {
        photos_order: [
          { key: 'front', category: 'exterior', required: true, done: true },
          { key: 'dashboard', category: 'interior', required: false, done: false },
        ],
        plate: marketingAsset(1, 'plate'),
        background: marketingAsset(2, 'background'),
        banner_bottom: marketingAsset(3, 'banner-bottom'),
        hotspot: true,
        banner_top: { id: 4, link: 'https://cdn.example.com/banner-top.png' },
        custom_image: null,
      },
      individual: {
        foreign: false,
        optinEmail: true,
        optinPhone: false,
        latitude: 45.764,
        longitude: 4.8357,
        city: 'Lyon',
        name: 'Claire Martin',
        email: 'claire@example.com',
        phone: '+33612345678',
        address: '1 rue de la République',
        zipcode: '69001',
        civility: 'Mme',
        repriseDate: '2024-04-01',
        businessName: 'Garage Martin',
      },
      data_provider: 'provider-a',
      importedToken: 'imported-123',
      inspection_link: 'https://app.example.com/inspections/123',
      pricing_provider: 'pricing-b',
      internal_comment: 'Seen by the workshop',
      auctioneer_comment: 'Clean car',
      externalMarketingLink: 'https://marketing.example.com/ad/1',
      externalMarketingToken: 'mk-token-1',
      custom_questions: [
        {
          id: 1,
          type: 'select',
          answer: 'yes',
          options: ['yes', 'no'],
          question: 'Service book available?',
          required: true,
        },
      ],
    },
    valuations: { market: { price: 18900, currency: 'EUR' }, providers: ['pricing-b'] },
    visualization: {
      audios: [{ url: 'https://cdn.example.com/engine.mp3' }],
      videos: [{ url: 'https://cdn.example.com/walkaround.mp4' }],
      damages: [{ url: 'https://cdn.example.com/damage-1.jpg', zone: 'front' }],
      three_d: [{ url: 'https://cdn.example.com/model.glb' }],
      documents: [{ url: 'https://cdn.example.com/invoice.pdf', kind: 'invoice' }],
      marketing: [{ url: 'https://cdn.example.com/ad.jpg' }],
    },
  };
}

function buildSampleReportState() {
  return Object.fromEntries(
    SPEC_STATE_KEYS.map((key, index) => [
      key,
      {
        name: key,
        order: index,
        status: index % 2 === 0,
        description: `State ${key}`,
        date: `2024-03-${String(index + 1).padStart(2, '0')}T10:00:00Z`,
      },
    ]),
  );
}

const SAMPLE_REAL_COSTS = { salesPrice: 18500.5, repairCosts: 750 };

function objectTypeNamed(schema: GraphQLSchema, name: string): GraphQLObjectType {
  const type: GraphQLNamedType | undefined = schema.getType(name);
  if (!isObjectType(type)) throw new Error(`${name} is not an object type of the schema`);
  return type;
}

/** The selection set reaching every leaf below `type`, generated so it keeps up with the types. */
function selectionSetFor(type: GraphQLObjectType): string {
  const fields = Object.values(type.getFields()).map((field) => {
    const fieldType = getNamedType(field.type);
    return isObjectType(fieldType) ? `${field.name} ${selectionSetFor(fieldType)}` : field.name;
  });
  return `{ ${fields.join(' ')} }`;
}

function leafPathsOf(type: GraphQLObjectType, prefix = ''): string[] {
  return Object.values(type.getFields()).flatMap((field) => {
    const path = `${prefix}${field.name}`;
    const fieldType = getNamedType(field.type);
    return isObjectType(fieldType) ? leafPathsOf(fieldType, `${path}.`) : [path];
  });
}

/** Values at `path`, stepping into every element of the arrays met on the way. */
function valuesAtPath(value: unknown, path: string[]): unknown[] {
  if (path.length === 0) return [value];
  if (Array.isArray(value)) return value.flatMap((item) => valuesAtPath(item, path));
  if (value === null || typeof value !== 'object') return [undefined];
  const [head, ...rest] = path;
  return valuesAtPath((value as Record<string, unknown>)[head], rest);
}

describe('report document GraphQL types', () => {
  let schema: GraphQLSchema;
  let fullQuery: string;

  beforeAll(async () => {
    schema = await buildSchema({
      resolvers: [ReportDocumentSampleResolver],
      emitSchemaFile: false,
      validate: false,
    });
    fullQuery = `{
      doc ${selectionSetFor(objectTypeNamed(schema, 'ReportData'))}
      state ${selectionSetFor(objectTypeNamed(schema, 'ReportState'))}
      costs ${selectionSetFor(objectTypeNamed(schema, 'RealCosts'))}
    }`;
  });

  function run(context: SampleContext) {
    return graphql({ schema, source: fullQuery, contextValue: context });
  }

  it('resolves every leaf of a full sample to the sample value', async () => {
    const sample = {
      doc: buildSampleReportData(),
      state: buildSampleReportState(),
      costs: SAMPLE_REAL_COSTS,
    };
    // The comparison below only proves something for leaves the sample actually sets.
    for (const path of SPEC_REPORT_DATA_LEAF_PATHS) {
      expect({ path, values: valuesAtPath(sample.doc, path.split('.')) }).toEqual({
        path,
        values: expect.not.arrayContaining([undefined]),
      });
    }

    const result = await run(sample);

    expect(result.errors).toBeUndefined();
    expect(result.data).toEqual(sample);
    for (const path of leafPathsOf(objectTypeNamed(schema, 'ReportData'))) {
      const segments = path.split('.');
      expect(valuesAtPath(result.data?.doc, segments)).toEqual(valuesAtPath(sample.doc, segments));
    }
  });

  it('exposes exactly the leaves of data listed in spec 2.3', () => {
    const schemaLeafPaths = leafPathsOf(objectTypeNamed(schema, 'ReportData'));
    expect(new Set(SPEC_REPORT_DATA_LEAF_PATHS).size).toBe(SPEC_REPORT_DATA_LEAF_PATHS.length);
    expect([...schemaLeafPaths].sort()).toEqual([...SPEC_REPORT_DATA_LEAF_PATHS].sort());
  });

  it('types every leaf as nullable so a stored document may lack any of them', () => {
    const nonNullFields: string[] = [];
    const visit = (type: GraphQLObjectType, prefix: string, seen: Set<string>): void => {
      if (seen.has(type.name)) return;
      seen.add(type.name);
      for (const field of Object.values(type.getFields())) {
        if (field.type.toString().includes('!')) nonNullFields.push(`${prefix}${field.name}`);
        const fieldType = getNamedType(field.type);
        if (isObjectType(fieldType)) visit(fieldType, `${prefix}${field.name}.`, new Set(seen));
      }
    };
    for (const name of ['ReportData', 'ReportState', 'RealCosts']) {
      visit(objectTypeNamed(schema, name), `${name}.`, new Set());
    }
    expect(nonNullFields).toEqual([]);
  });

  it('resolves a missing vehicle.history and metadata.marketing to null without errors', async () => {
    const doc = buildSampleReportData();
    const { history: _history, ...vehicleWithoutHistory } = doc.vehicle;
    const { marketing: _marketing, ...metadataWithoutMarketing } = doc.metadata;
    const partialDoc = { ...doc, vehicle: vehicleWithoutHistory, metadata: metadataWithoutMarketing };

    const result = await run({ doc: partialDoc, state: {}, costs: {} });

    expect(result.errors).toBeUndefined();
    const resolvedDoc = result.data?.doc as Schema.ReportData;
    expect(resolvedDoc.vehicle?.history).toBeNull();
    expect(resolvedDoc.metadata?.marketing).toBeNull();
    expect(resolvedDoc.vehicle?.vin).toBe(doc.vehicle.vin);
    expect(resolvedDoc.metadata?.name).toBe(doc.metadata.name);
  });

  it('resolves an empty document, state and costs to nulls without errors', async () => {
    const result = await run({ doc: {}, state: {}, costs: {} });

    expect(result.errors).toBeUndefined();
    expect(result.data?.doc).toEqual({
      vehicle: null,
      metadata: null,
      valuations: null,
      visualization: null,
    });
    expect(Object.values(result.data?.state as object).every((entry) => entry === null)).toBe(true);
    expect(result.data?.costs).toEqual({ salesPrice: null, repairCosts: null });
  });

  it('has the 14 state keys of spec 3, each a StateEntry', () => {
    expect([...REPORT_STATE_KEYS].sort()).toEqual([...SPEC_STATE_KEYS].sort());
    expect(REPORT_STATE_KEYS).toHaveLength(14);

    const stateFields = objectTypeNamed(schema, 'ReportState').getFields();
    expect(Object.keys(stateFields).sort()).toEqual([...SPEC_STATE_KEYS].sort());
    for (const key of SPEC_STATE_KEYS) {
      expect(getNamedType(stateFields[key].type).name).toBe('StateEntry');
    }
    expect(Object.keys(objectTypeNamed(schema, 'StateEntry').getFields()).sort()).toEqual(
      ['date', 'description', 'name', 'order', 'status'].sort(),
    );
    expect(Object.keys(objectTypeNamed(schema, 'RealCosts').getFields()).sort()).toEqual(['repairCosts', 'salesPrice']);
  });
});
