/**
 * Vehicle catalogue, VIN and French SIV plate generation for the demo dataset.
 * Pure code: everything random goes through a SeededRandom so the output depends on the seed only.
 */

/**
 * Small deterministic PRNG (sfc32 seeded through splitmix32) shared by the seed modules.
 * Kept in-house rather than using faker at run time: faker 10 is ESM-only and the project's Jest
 * (CommonJS, Node 20) cannot load it, which would break every test that builds the demo dataset.
 */
export class SeededRandom {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    let state = seed >>> 0;
    const splitmix32 = (): number => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.a = splitmix32();
    this.b = splitmix32();
    this.c = splitmix32();
    this.d = splitmix32();
    for (let i = 0; i < 12; i += 1) this.next();
  }

  /** Uniform float in [0, 1). */
  next(): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
    this.d = (this.d + 1) >>> 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) >>> 0;
    this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
    this.c = (this.c + t) >>> 0;
    return t / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Float in [min, max) rounded to `decimals`. */
  float(min: number, max: number, decimals = 2): number {
    const factor = 10 ** decimals;
    return Math.round((min + this.next() * (max - min)) * factor) / factor;
  }

  bool(probabilityTrue = 0.5): boolean {
    return this.next() < probabilityTrue;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks `count` distinct items, keeping the catalogue order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const indexes = items.map((_, index) => index);
    for (let i = indexes.length - 1; i > 0; i -= 1) {
      const j = this.int(0, i);
      [indexes[i], indexes[j]] = [indexes[j] as number, indexes[i] as number];
    }
    return indexes
      .slice(0, Math.min(count, items.length))
      .sort((x, y) => x - y)
      .map((index) => items[index] as T);
  }

  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let threshold = this.next() * total;
    for (const [value, weight] of entries) {
      threshold -= weight;
      if (threshold < 0) return value;
    }
    return (entries[entries.length - 1] as readonly [T, number])[0];
  }

  digits(length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1) out += String(this.int(0, 9));
    return out;
  }

  /** A version 4, variant 1 UUID built from this generator (deterministic, not cryptographic). */
  uuid(): string {
    const hex = (count: number): string => {
      let out = '';
      for (let i = 0; i < count; i += 1) out += this.int(0, 15).toString(16);
      return out;
    };
    const variant = this.pick(['8', '9', 'a', 'b']);
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
  }

  /** A date uniformly between two instants, at millisecond precision. */
  dateBetween(from: Date, to: Date): Date {
    return new Date(from.getTime() + Math.floor(this.next() * (to.getTime() - from.getTime())));
  }
}

// ---------------------------------------------------------------------------------------------
// Catalogue

export type Fuel = 'Essence' | 'Diesel' | 'Hybride' | 'Hybride rechargeable' | 'Électrique' | 'GPL';
export type Motricity = 'Traction' | 'Propulsion' | 'Intégrale';

export interface VehicleVersion {
  name: string;
  fuel: Fuel;
  /** DIN horsepower. */
  power: number;
  /** French "chevaux fiscaux". */
  fiscalPower: number;
  /** g/km, WLTP. */
  emissionCO2: number;
  /** cm³, 0 for electric cars. */
  cylinder: number;
  automatic: boolean;
  /** New price in euros. */
  price: number;
  /** l/100 km, or kWh/100 km for electric cars. */
  consumption: number;
}

export interface VehicleModel {
  name: string;
  body: string;
  doors: number;
  seats: number;
  /** Length × width × height in mm. */
  dimensions: readonly [number, number, number];
  weightKg: number;
  motricity: Motricity;
  tireDimension: string;
  /** First and last model year on sale. */
  years: readonly [number, number];
  versions: readonly VehicleVersion[];
}

export interface VehicleBrand {
  name: string;
  manufacturer: string;
  /** World manufacturer identifiers actually used by the brand for cars sold in France. */
  wmis: readonly string[];
  /** Used for the imported-car history (country of origin). */
  country: string;
  models: readonly VehicleModel[];
}

function version(
  name: string,
  fuel: Fuel,
  power: number,
  fiscalPower: number,
  emissionCO2: number,
  cylinder: number,
  automatic: boolean,
  price: number,
  consumption: number,
): VehicleVersion {
  return { name, fuel, power, fiscalPower, emissionCO2, cylinder, automatic, price, consumption };
}

function model(
  name: string,
  body: string,
  shape: { doors: number; seats: number; dimensions: [number, number, number]; weightKg: number; motricity?: Motricity },
  tireDimension: string,
  years: [number, number],
  versions: VehicleVersion[],
): VehicleModel {
  return {
    name,
    body,
    doors: shape.doors,
    seats: shape.seats,
    dimensions: shape.dimensions,
    weightKg: shape.weightKg,
    motricity: shape.motricity ?? 'Traction',
    tireDimension,
    years,
    versions,
  };
}

const EV = 'Électrique' as const;
const PHEV = 'Hybride rechargeable' as const;
const HEV = 'Hybride' as const;

export const VEHICLE_CATALOGUE: readonly VehicleBrand[] = [
  {
    name: 'Renault',
    manufacturer: 'Renault SAS',
    wmis: ['VF1'],
    country: 'France',
    models: [
      model(
        'Clio V',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [4050, 1798, 1440], weightKg: 1155 },
        '195/55 R16',
        [2019, 2026],
        [
          version('TCe 90 Evolution', 'Essence', 90, 5, 118, 999, false, 19900, 5.2),
          version('E-Tech full hybrid 145 Techno', HEV, 145, 4, 96, 1598, true, 25900, 4.3),
          version('Blue dCi 100 Business', 'Diesel', 100, 5, 107, 1461, false, 21950, 4.1),
        ],
      ),
      model(
        'Captur II',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4228, 1797, 1576], weightKg: 1270 },
        '215/60 R17',
        [2020, 2026],
        [
          version('TCe 140 Techno', 'Essence', 140, 7, 134, 1333, true, 28300, 5.9),
          version('E-Tech Plug-in 160 Intens', PHEV, 160, 4, 34, 1598, true, 36400, 1.5),
        ],
      ),
      model(
        'Mégane E-Tech',
        'Berline compacte',
        { doors: 5, seats: 5, dimensions: [4200, 1768, 1505], weightKg: 1636 },
        '215/55 R18',
        [2022, 2026],
        [
          version('EV60 220 ch Techno', EV, 220, 3, 0, 0, true, 41500, 16.1),
          version('EV40 130 ch Equilibre', EV, 130, 2, 0, 0, true, 36000, 15.5),
        ],
      ),
      model(
        'Austral',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4510, 1825, 1644], weightKg: 1589 },
        '225/55 R19',
        [2022, 2026],
        [
          version('E-Tech full hybrid 200 Iconic', HEV, 200, 6, 105, 1199, true, 45400, 4.6),
          version('Mild Hybrid 160 Techno', 'Essence', 160, 8, 140, 1332, true, 37900, 6.2),
        ],
      ),
    ],
  },
  {
    name: 'Peugeot',
    manufacturer: 'Stellantis Auto SAS',
    wmis: ['VF3', 'VR3'],
    country: 'France',
    models: [
      model(
        '208',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [4055, 1745, 1430], weightKg: 1090 },
        '195/55 R16',
        [2019, 2026],
        [
          version('PureTech 100 Allure', 'Essence', 100, 5, 124, 1199, false, 22100, 5.5),
          version('e-208 136 GT', EV, 136, 4, 0, 0, true, 37250, 15.8),
          version('BlueHDi 100 Active', 'Diesel', 100, 4, 108, 1499, false, 21400, 4.1),
        ],
      ),
      model(
        '3008',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4447, 1841, 1624], weightKg: 1425 },
        '225/55 R18',
        [2016, 2026],
        [
          version('BlueHDi 130 EAT8 Allure', 'Diesel', 130, 7, 128, 1499, true, 38500, 4.9),
          version('Hybrid 225 e-EAT8 GT', PHEV, 225, 9, 31, 1598, true, 47900, 1.4),
          version('PureTech 130 Active', 'Essence', 130, 7, 139, 1199, false, 32800, 6.1),
        ],
      ),
      model(
        '308',
        'Berline compacte',
        { doors: 5, seats: 5, dimensions: [4367, 1852, 1441], weightKg: 1330 },
        '225/45 R17',
        [2021, 2026],
        [
          version('PureTech 130 EAT8 Allure', 'Essence', 130, 7, 132, 1199, true, 31300, 5.8),
          version('Hybrid 180 e-EAT8 GT', PHEV, 180, 8, 25, 1598, true, 43450, 1.1),
        ],
      ),
    ],
  },
  {
    name: 'Citroën',
    manufacturer: 'Stellantis Auto SAS',
    wmis: ['VF7', 'VR7'],
    country: 'France',
    models: [
      model(
        'C3',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [3996, 1749, 1474], weightKg: 1050 },
        '195/65 R15',
        [2016, 2026],
        [
          version('PureTech 83 Feel', 'Essence', 83, 4, 128, 1199, false, 17950, 5.6),
          version('BlueHDi 100 Shine', 'Diesel', 100, 5, 105, 1499, false, 20900, 4.0),
        ],
      ),
      model(
        'C5 Aircross',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4500, 1859, 1689], weightKg: 1430 },
        '205/55 R19',
        [2018, 2025],
        [
          version('BlueHDi 130 EAT8 Shine', 'Diesel', 130, 7, 132, 1499, true, 36200, 5.0),
          version('Hybrid 225 e-EAT8 Feel', PHEV, 225, 8, 32, 1598, true, 43900, 1.4),
        ],
      ),
      model(
        'Berlingo',
        'Ludospace',
        { doors: 5, seats: 5, dimensions: [4403, 1848, 1844], weightKg: 1480 },
        '205/60 R16',
        [2018, 2026],
        [
          version('BlueHDi 100 Feel', 'Diesel', 100, 5, 139, 1499, false, 27500, 5.3),
          version('ë-Berlingo 136 Shine', EV, 136, 4, 0, 0, true, 38500, 20.5),
        ],
      ),
    ],
  },
  {
    name: 'Volkswagen',
    manufacturer: 'Volkswagen AG',
    wmis: ['WVW', 'WVG'],
    country: 'Allemagne',
    models: [
      model(
        'Golf VIII',
        'Berline compacte',
        { doors: 5, seats: 5, dimensions: [4284, 1789, 1456], weightKg: 1255 },
        '205/55 R16',
        [2020, 2026],
        [
          version('1.5 eTSI 150 DSG7 Life', 'Essence', 150, 8, 129, 1498, true, 35100, 5.7),
          version('2.0 TDI 115 Life', 'Diesel', 115, 6, 112, 1968, false, 32900, 4.3),
          version('GTE 1.4 TSI 245 DSG6', PHEV, 245, 10, 27, 1395, true, 46500, 1.2),
        ],
      ),
      model(
        'Polo VI',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [4074, 1751, 1451], weightKg: 1115 },
        '185/65 R15',
        [2017, 2026],
        [version('1.0 TSI 95 Life', 'Essence', 95, 5, 121, 999, false, 21600, 5.4)],
      ),
      model(
        'ID.4',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4584, 1852, 1640], weightKg: 2049, motricity: 'Propulsion' },
        '235/55 R19',
        [2021, 2026],
        [
          version('Pro Performance 204', EV, 204, 4, 0, 0, true, 48990, 16.9),
          version('GTX 299 4Motion', EV, 299, 6, 0, 0, true, 56990, 18.2),
        ],
      ),
      model(
        'Tiguan II',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4509, 1839, 1675], weightKg: 1545 },
        '235/55 R18',
        [2016, 2023],
        [version('2.0 TDI 150 DSG7 Carat', 'Diesel', 150, 8, 143, 1968, true, 44800, 5.5)],
      ),
    ],
  },
  {
    name: 'BMW',
    manufacturer: 'Bayerische Motoren Werke AG',
    wmis: ['WBA', 'WBY'],
    country: 'Allemagne',
    models: [
      model(
        'Série 3',
        'Berline',
        { doors: 4, seats: 5, dimensions: [4709, 1827, 1442], weightKg: 1545, motricity: 'Propulsion' },
        '225/45 R18',
        [2019, 2026],
        [
          version('320d 190 M Sport', 'Diesel', 190, 10, 124, 1995, true, 51300, 4.7),
          version('330e 292 M Sport', PHEV, 292, 11, 36, 1998, true, 58700, 1.6),
        ],
      ),
      model(
        'X1',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4500, 1845, 1642], weightKg: 1575 },
        '225/55 R18',
        [2022, 2026],
        [
          version('sDrive18i 136 xLine', 'Essence', 136, 7, 139, 1499, true, 43950, 6.1),
          version('iX1 xDrive30 313', EV, 313, 5, 0, 0, true, 56450, 17.3),
        ],
      ),
      model(
        'i4',
        'Gran Coupé',
        { doors: 5, seats: 5, dimensions: [4783, 1852, 1448], weightKg: 2050, motricity: 'Propulsion' },
        '245/45 R18',
        [2021, 2026],
        [version('eDrive40 340 M Sport', EV, 340, 6, 0, 0, true, 65900, 16.7)],
      ),
    ],
  },
  {
    name: 'Mercedes-Benz',
    manufacturer: 'Mercedes-Benz AG',
    wmis: ['WDD', 'W1K', 'W1N'],
    country: 'Allemagne',
    models: [
      model(
        'Classe A',
        'Berline compacte',
        { doors: 5, seats: 5, dimensions: [4419, 1796, 1440], weightKg: 1375 },
        '205/55 R17',
        [2018, 2026],
        [
          version('A 180 d 116 Progressive Line', 'Diesel', 116, 6, 119, 1461, true, 37750, 4.5),
          version('A 250 e 218 AMG Line', PHEV, 218, 8, 24, 1332, true, 47900, 1.1),
        ],
      ),
      model(
        'GLC',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4716, 1890, 1640], weightKg: 1890, motricity: 'Intégrale' },
        '235/60 R18',
        [2019, 2026],
        [
          version('GLC 220 d 4MATIC 197 AMG Line', 'Diesel', 197, 11, 157, 1993, true, 68950, 6.0),
          version('GLC 300 e 4MATIC 313', PHEV, 313, 10, 16, 1999, true, 74900, 0.7),
        ],
      ),
      model(
        'EQA',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4463, 1834, 1620], weightKg: 2040 },
        '235/55 R18',
        [2021, 2026],
        [version('EQA 250+ 190 Progressive Line', EV, 190, 3, 0, 0, true, 52950, 15.7)],
      ),
    ],
  },
  {
    name: 'Audi',
    manufacturer: 'Audi AG',
    wmis: ['WAU', 'TRU', 'WA1'],
    country: 'Allemagne',
    models: [
      model(
        'A3 Sportback',
        'Berline compacte',
        { doors: 5, seats: 5, dimensions: [4343, 1816, 1449], weightKg: 1320 },
        '225/45 R17',
        [2020, 2026],
        [
          version('35 TFSI 150 S tronic S line', 'Essence', 150, 8, 131, 1498, true, 39800, 5.8),
          version('30 TDI 116 Design', 'Diesel', 116, 6, 111, 1968, false, 35600, 4.2),
        ],
      ),
      model(
        'Q3',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4484, 1849, 1585], weightKg: 1555 },
        '235/55 R18',
        [2018, 2026],
        [
          version('35 TDI 150 S tronic Advanced', 'Diesel', 150, 8, 137, 1968, true, 45300, 5.2),
          version('45 TFSIe 245 S line', PHEV, 245, 9, 35, 1395, true, 54200, 1.5),
        ],
      ),
      model(
        'Q4 e-tron',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4588, 1865, 1632], weightKg: 2050, motricity: 'Propulsion' },
        '235/55 R19',
        [2021, 2026],
        [version('40 e-tron 204 S line', EV, 204, 4, 0, 0, true, 53950, 17.0)],
      ),
    ],
  },
  {
    name: 'Toyota',
    manufacturer: 'Toyota Motor Corporation',
    wmis: ['VNK', 'SB1', 'JTD'],
    country: 'Japon',
    models: [
      model(
        'Yaris IV',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [3940, 1745, 1500], weightKg: 1085 },
        '185/65 R15',
        [2020, 2026],
        [
          version('Hybride 116 Design', HEV, 116, 5, 92, 1490, true, 24900, 3.8),
          version('1.0 VVT-i 72 France', 'Essence', 72, 4, 118, 998, false, 18950, 5.2),
        ],
      ),
      model(
        'C-HR',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4360, 1795, 1555], weightKg: 1380 },
        '225/50 R18',
        [2017, 2026],
        [
          version('Hybride 122 Distinctive', HEV, 122, 5, 109, 1798, true, 31900, 4.8),
          version('Hybride 184 GR Sport', HEV, 184, 7, 114, 1987, true, 38900, 5.0),
        ],
      ),
      model(
        'RAV4 V',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4600, 1855, 1685], weightKg: 1680, motricity: 'Intégrale' },
        '225/60 R18',
        [2019, 2026],
        [
          version('Hybride 222 AWD-i Lounge', HEV, 222, 8, 126, 2487, true, 47900, 5.6),
          version('Hybride rechargeable 306 Collection', PHEV, 306, 11, 22, 2487, true, 59900, 1.0),
        ],
      ),
    ],
  },
  {
    name: 'Tesla',
    manufacturer: 'Tesla Inc.',
    wmis: ['5YJ', 'LRW', 'XP7'],
    country: 'États-Unis',
    models: [
      model(
        'Model 3',
        'Berline',
        { doors: 4, seats: 5, dimensions: [4720, 1850, 1441], weightKg: 1765, motricity: 'Propulsion' },
        '235/45 R18',
        [2019, 2026],
        [
          version('Propulsion 283', EV, 283, 6, 0, 0, true, 42990, 13.2),
          version('Grande Autonomie AWD 498', EV, 498, 10, 0, 0, true, 50990, 14.3),
        ],
      ),
      model(
        'Model Y',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4751, 1921, 1624], weightKg: 1909, motricity: 'Intégrale' },
        '255/45 R19',
        [2021, 2026],
        [
          version('Propulsion 299', EV, 299, 6, 0, 0, true, 44990, 15.1),
          version('Grande Autonomie AWD 514', EV, 514, 10, 0, 0, true, 52990, 16.0),
        ],
      ),
    ],
  },
  {
    name: 'Dacia',
    manufacturer: 'Automobile Dacia SA',
    wmis: ['UU1', 'VGA'],
    country: 'Roumanie',
    models: [
      model(
        'Sandero III',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [4088, 1848, 1499], weightKg: 1039 },
        '195/65 R15',
        [2021, 2026],
        [
          version('TCe 90 Expression', 'Essence', 90, 5, 120, 999, false, 15990, 5.3),
          version('Stepway ECO-G 100 Extreme', 'GPL', 100, 5, 111, 999, false, 18790, 6.9),
        ],
      ),
      model(
        'Duster II',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4341, 1804, 1693], weightKg: 1280 },
        '215/65 R16',
        [2018, 2024],
        [
          version('Blue dCi 115 4x4 Prestige', 'Diesel', 115, 6, 138, 1461, false, 24890, 5.3),
          version('TCe 130 Journey', 'Essence', 130, 7, 142, 1332, false, 21490, 6.3),
        ],
      ),
      model(
        'Spring',
        'Citadine',
        { doors: 5, seats: 4, dimensions: [3734, 1622, 1516], weightKg: 975 },
        '165/70 R14',
        [2021, 2026],
        [version('Electric 45 Expression', EV, 45, 1, 0, 0, true, 16990, 13.9)],
      ),
    ],
  },
  {
    name: 'Ford',
    manufacturer: 'Ford-Werke GmbH',
    wmis: ['WF0'],
    country: 'Allemagne',
    models: [
      model(
        'Puma',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4207, 1805, 1537], weightKg: 1280 },
        '215/55 R17',
        [2020, 2026],
        [
          version('1.0 EcoBoost 125 mHEV Titanium', 'Essence', 125, 6, 124, 999, false, 27950, 5.5),
          version('1.0 EcoBoost 155 mHEV ST-Line X', 'Essence', 155, 8, 128, 999, true, 32450, 5.7),
        ],
      ),
      model(
        'Kuga III',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4614, 1883, 1666], weightKg: 1686 },
        '225/55 R18',
        [2020, 2026],
        [
          version('2.5 Duratec 225 PHEV ST-Line', PHEV, 225, 8, 26, 2488, true, 44950, 1.2),
          version('1.5 EcoBlue 120 Titanium', 'Diesel', 120, 6, 132, 1499, false, 34500, 5.0),
        ],
      ),
      model(
        'Fiesta VII',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [4068, 1735, 1476], weightKg: 1080 },
        '195/55 R16',
        [2017, 2023],
        [version('1.0 EcoBoost 100 Trend', 'Essence', 100, 5, 118, 999, false, 18950, 5.2)],
      ),
    ],
  },
  {
    name: 'Fiat',
    manufacturer: 'Stellantis Europe SpA',
    wmis: ['ZFA'],
    country: 'Italie',
    models: [
      model(
        '500',
        'Citadine',
        { doors: 3, seats: 4, dimensions: [3571, 1627, 1488], weightKg: 940 },
        '185/55 R15',
        [2016, 2024],
        [version('1.0 BSG 70 Dolcevita', HEV, 70, 4, 106, 999, false, 17490, 4.7)],
      ),
      model(
        '500e',
        'Citadine',
        { doors: 3, seats: 4, dimensions: [3632, 1683, 1527], weightKg: 1290 },
        '205/45 R17',
        [2021, 2026],
        [version('118 ch La Prima', EV, 118, 3, 0, 0, true, 34900, 14.3)],
      ),
      model(
        'Tipo',
        'Berline compacte',
        { doors: 5, seats: 5, dimensions: [4368, 1792, 1495], weightKg: 1305 },
        '205/55 R16',
        [2016, 2024],
        [version('1.6 MultiJet 130 Life', 'Diesel', 130, 7, 118, 1598, false, 24990, 4.5)],
      ),
    ],
  },
  {
    name: 'Kia',
    manufacturer: 'Kia Corporation',
    wmis: ['KNA', 'U5Y'],
    country: 'Corée du Sud',
    models: [
      model(
        'Niro',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4420, 1825, 1545], weightKg: 1474 },
        '205/60 R16',
        [2019, 2026],
        [
          version('e-Niro 204 Premium', EV, 204, 4, 0, 0, true, 41990, 16.2),
          version('HEV 141 Active', HEV, 141, 5, 100, 1580, true, 31390, 4.4),
        ],
      ),
      model(
        'Sportage V',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4515, 1865, 1645], weightKg: 1577 },
        '235/55 R19',
        [2022, 2026],
        [version('1.6 T-GDi 230 HEV GT-Line', HEV, 230, 7, 127, 1598, true, 42690, 5.6)],
      ),
      model(
        'Ceed III',
        'Berline compacte',
        { doors: 5, seats: 5, dimensions: [4310, 1800, 1447], weightKg: 1260 },
        '205/55 R16',
        [2018, 2025],
        [version('1.0 T-GDi 120 Active', 'Essence', 120, 6, 125, 998, false, 24990, 5.5)],
      ),
    ],
  },
  {
    name: 'Hyundai',
    manufacturer: 'Hyundai Motor Company',
    wmis: ['KMH', 'TMA', 'NLH'],
    country: 'Corée du Sud',
    models: [
      model(
        'Tucson IV',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4500, 1865, 1650], weightKg: 1587 },
        '235/55 R19',
        [2021, 2026],
        [
          version('1.6 T-GDi 230 Hybrid Executive', HEV, 230, 8, 131, 1598, true, 44450, 5.8),
          version('1.6 CRDi 136 Hybrid 48V Creative', 'Diesel', 136, 7, 133, 1598, true, 39850, 5.1),
        ],
      ),
      model(
        'Kona',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4205, 1800, 1550], weightKg: 1685 },
        '215/55 R17',
        [2018, 2026],
        [
          version('Electric 204 Executive', EV, 204, 4, 0, 0, true, 42900, 14.7),
          version('1.6 GDi Hybrid 141 Intuitive', HEV, 141, 5, 102, 1580, true, 30900, 4.5),
        ],
      ),
      model(
        'i20',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [4040, 1775, 1450], weightKg: 1115 },
        '195/55 R16',
        [2020, 2026],
        [version('1.0 T-GDi 100 Intuitive', 'Essence', 100, 5, 119, 998, false, 20950, 5.3)],
      ),
    ],
  },
  {
    name: 'Skoda',
    manufacturer: 'Škoda Auto a.s.',
    wmis: ['TMB'],
    country: 'République tchèque',
    models: [
      model(
        'Octavia IV',
        'Break',
        { doors: 5, seats: 5, dimensions: [4698, 1829, 1468], weightKg: 1365 },
        '205/55 R17',
        [2020, 2026],
        [
          version('Combi 2.0 TDI 150 DSG7 Style', 'Diesel', 150, 8, 121, 1968, true, 38990, 4.6),
          version('Combi 1.4 TSI iV 204 Sportline', PHEV, 204, 7, 28, 1395, true, 43290, 1.2),
        ],
      ),
      model(
        'Fabia IV',
        'Citadine',
        { doors: 5, seats: 5, dimensions: [4107, 1780, 1460], weightKg: 1130 },
        '185/65 R15',
        [2021, 2026],
        [version('1.0 TSI 95 Selection', 'Essence', 95, 5, 118, 999, false, 20990, 5.2)],
      ),
      model(
        'Enyaq iV',
        'SUV',
        { doors: 5, seats: 5, dimensions: [4649, 1879, 1616], weightKg: 2090, motricity: 'Propulsion' },
        '235/55 R19',
        [2021, 2026],
        [version('80 204 Loft', EV, 204, 4, 0, 0, true, 49990, 16.5)],
      ),
    ],
  },
];

export function findBrand(name: string): VehicleBrand {
  const brand = VEHICLE_CATALOGUE.find((candidate) => candidate.name === name);
  if (!brand) throw new Error(`Unknown brand ${name}`);
  return brand;
}

// ---------------------------------------------------------------------------------------------
// VIN (ISO 3779; 9th character computed as the North-American check digit)

const VIN_CHARACTERS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';
const VIN_PATTERN = /^[A-HJ-NPR-Z0-9]{17}$/;
const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2] as const;
const VIN_TRANSLITERATION: Readonly<Record<string, number>> = {
  A: 1,
  B: 2,
  C: 3,
  D: 4,
  E: 5,
  F: 6,
  G: 7,
  H: 8,
  J: 1,
  K: 2,
  L: 3,
  M: 4,
  N: 5,
  P: 7,
  R: 9,
  S: 2,
  T: 3,
  U: 4,
  V: 5,
  W: 6,
  X: 7,
  Y: 8,
  Z: 9,
};
/** Model-year codes (position 10) for 2010–2030; I, O, Q, U, Z and 0 are never used. */
const MODEL_YEAR_CODES = 'ABCDEFGHJKLMNPRSTVWXY';

function vinCharacterValue(character: string): number {
  if (character >= '0' && character <= '9') return Number(character);
  const value = VIN_TRANSLITERATION[character];
  if (value === undefined) throw new Error(`Invalid VIN character ${character}`);
  return value;
}

/** The check digit ('0'–'9' or 'X') a 17-character VIN must carry at position 9. */
export function vinCheckDigit(vin: string): string {
  const normalized = vin.toUpperCase();
  if (normalized.length !== 17) throw new Error(`A VIN has 17 characters, got ${normalized.length}`);
  let sum = 0;
  for (let i = 0; i < 17; i += 1) {
    sum += vinCharacterValue(normalized[i] as string) * (VIN_WEIGHTS[i] as number);
  }
  const remainder = sum % 11;
  return remainder === 10 ? 'X' : String(remainder);
}

export function isValidVin(vin: string): boolean {
  return VIN_PATTERN.test(vin) && vin[8] === vinCheckDigit(vin);
}

export function modelYearCode(year: number): string {
  const code = MODEL_YEAR_CODES[year - 2010];
  if (code === undefined) throw new Error(`No model-year code for ${year}`);
  return code;
}

export function generateVin(random: SeededRandom, brand: VehicleBrand, modelYear: number): string {
  const wmi = random.pick(brand.wmis);
  let descriptor = '';
  for (let i = 0; i < 5; i += 1) descriptor += random.pick([...VIN_CHARACTERS]);
  const plant = random.pick([...'ABCDEFGHJKLMNPRSTUVWXYZ123456789']);
  const serial = random.digits(6);
  const withPlaceholder = `${wmi}${descriptor}0${modelYearCode(modelYear)}${plant}${serial}`;
  return `${withPlaceholder.slice(0, 8)}${vinCheckDigit(withPlaceholder)}${withPlaceholder.slice(9)}`;
}

// ---------------------------------------------------------------------------------------------
// French SIV plates (AB-123-CD)

const PLATE_LETTERS = 'ABCDEFGHJKLMNPQRSTVWXYZ';
const FORBIDDEN_FIRST_PAIRS: ReadonlySet<string> = new Set(['SS', 'WW']);
export const SIV_PLATE_PATTERN = /^[A-HJ-NP-TV-Z]{2}-(?!000)\d{3}-[A-HJ-NP-TV-Z]{2}$/;

export function isValidSivPlate(plate: string): boolean {
  return SIV_PLATE_PATTERN.test(plate) && !FORBIDDEN_FIRST_PAIRS.has(plate.slice(0, 2));
}

/**
 * SIV numbers are issued in sequence since April 2009 (AA-001-AA), reaching the H series around
 * 2024, so the first letter follows the registration year to look like a real plate of that age.
 */
export function generatePlate(random: SeededRandom, registrationYear: number): string {
  const seriesIndex = Math.max(0, Math.min(7, Math.floor((registrationYear - 2009) / 2.2)));
  let firstPair: string;
  do {
    firstPair = `${PLATE_LETTERS[seriesIndex] as string}${random.pick([...PLATE_LETTERS])}`;
  } while (FORBIDDEN_FIRST_PAIRS.has(firstPair));
  const number = String(random.int(1, 999)).padStart(3, '0');
  const lastPair = `${random.pick([...PLATE_LETTERS])}${random.pick([...PLATE_LETTERS])}`;
  return `${firstPair}-${number}-${lastPair}`;
}
