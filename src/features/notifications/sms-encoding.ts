/**
 * How many SMS parts a text costs (3GPP TS 23.038): GSM-7 when every character is in the GSM
 * default alphabet (extension characters take two septets), else UCS-2 (UTF-16 code units).
 * Single part: 160 septets / 70 units; concatenated parts: 153 / 67 (the rest is the UDH).
 */

const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' + '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '\f^{}\\[~]|€';

const BASIC = new Set(GSM7_BASIC);
const EXTENSION = new Set(GSM7_EXTENSION);

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSegments {
  encoding: SmsEncoding;
  /** septets (GSM-7) or UTF-16 code units (UCS-2) */
  units: number;
  segments: number;
}

export function smsSegments(text: string): SmsSegments {
  let septets = 0;
  for (const char of text) {
    if (BASIC.has(char)) septets += 1;
    else if (EXTENSION.has(char)) septets += 2;
    else return partsOf('UCS-2', text.length, 70, 67);
  }
  return partsOf('GSM-7', septets, 160, 153);
}

function partsOf(encoding: SmsEncoding, units: number, single: number, multi: number): SmsSegments {
  return { encoding, units, segments: units === 0 ? 1 : units <= single ? 1 : Math.ceil(units / multi) };
}
