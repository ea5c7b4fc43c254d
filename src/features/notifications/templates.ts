/**
 * Texts of the lead notifications, one set per language of api-behaviour.md. Rendered at send time
 * from the outbox payload, so a wording fix reaches messages still waiting in the outbox.
 */
import type { NotificationPayload } from './notification-payload';

export const NOTIFICATION_LANGUAGES = ['fr', 'en', 'es', 'de', 'it', 'nl', 'pt'] as const;
export type NotificationLanguage = (typeof NOTIFICATION_LANGUAGES)[number];

interface LanguageTexts {
  subject: (dealership: string) => string;
  greeting: (name: string | null) => string;
  invitation: (dealership: string) => string;
  button: string;
  fallbackLink: string;
  signature: (dealership: string) => string;
  /** default SMS body, before the link */
  sms: (name: string | null, dealership: string) => string;
}

const TEXTS: Record<NotificationLanguage, LanguageTexts> = {
  fr: {
    subject: (d) => `${d} : votre rapport véhicule`,
    greeting: (n) => (n ? `Bonjour ${n},` : 'Bonjour,'),
    invitation: (d) => `${d} vous invite à compléter le rapport de votre véhicule en ligne.`,
    button: 'Ouvrir mon rapport',
    fallbackLink: 'Si le bouton ne fonctionne pas, copiez ce lien dans votre navigateur :',
    signature: (d) => `L'équipe ${d}`,
    sms: (n, d) => `${n ? `Bonjour ${n}, ` : 'Bonjour, '}${d} vous invite à compléter le rapport de votre véhicule :`,
  },
  en: {
    subject: (d) => `${d}: your vehicle report`,
    greeting: (n) => (n ? `Hello ${n},` : 'Hello,'),
    invitation: (d) => `${d} invites you to complete your vehicle report online.`,
    button: 'Open my report',
    fallbackLink: 'If the button does not work, copy this link into your browser:',
    signature: (d) => `The ${d} team`,
    sms: (n, d) => `${n ? `Hello ${n}, ` : 'Hello, '}${d} invites you to complete your vehicle report:`,
  },
  es: {
    subject: (d) => `${d}: su informe del vehículo`,
    greeting: (n) => (n ? `Hola ${n}:` : 'Hola:'),
    invitation: (d) => `${d} le invita a completar el informe de su vehículo en línea.`,
    button: 'Abrir mi informe',
    fallbackLink: 'Si el botón no funciona, copie este enlace en su navegador:',
    signature: (d) => `El equipo de ${d}`,
    sms: (n, d) => `${n ? `Hola ${n}, ` : 'Hola, '}${d} le invita a completar el informe de su vehículo:`,
  },
  de: {
    subject: (d) => `${d}: Ihr Fahrzeugbericht`,
    greeting: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
    invitation: (d) => `${d} lädt Sie ein, den Bericht zu Ihrem Fahrzeug online auszufüllen.`,
    button: 'Meinen Bericht öffnen',
    fallbackLink: 'Falls die Schaltfläche nicht funktioniert, kopieren Sie diesen Link in Ihren Browser:',
    signature: (d) => `Ihr Team von ${d}`,
    sms: (n, d) => `${n ? `Hallo ${n}, ` : 'Hallo, '}${d} lädt Sie ein, Ihren Fahrzeugbericht auszufüllen:`,
  },
  it: {
    subject: (d) => `${d}: il rapporto del suo veicolo`,
    greeting: (n) => (n ? `Buongiorno ${n},` : 'Buongiorno,'),
    invitation: (d) => `${d} la invita a completare online il rapporto del suo veicolo.`,
    button: 'Apri il mio rapporto',
    fallbackLink: 'Se il pulsante non funziona, copi questo link nel browser:',
    signature: (d) => `Il team di ${d}`,
    sms: (n, d) => `${n ? `Buongiorno ${n}, ` : 'Buongiorno, '}${d} la invita a completare il rapporto del suo veicolo:`,
  },
  nl: {
    subject: (d) => `${d}: uw voertuigrapport`,
    greeting: (n) => (n ? `Beste ${n},` : 'Beste klant,'),
    invitation: (d) => `${d} nodigt u uit om het rapport van uw voertuig online in te vullen.`,
    button: 'Mijn rapport openen',
    fallbackLink: 'Werkt de knop niet? Kopieer deze link in uw browser:',
    signature: (d) => `Het team van ${d}`,
    sms: (n, d) => `${n ? `Beste ${n}, ` : 'Beste klant, '}${d} nodigt u uit om uw voertuigrapport in te vullen:`,
  },
  pt: {
    subject: (d) => `${d}: o relatório do seu veículo`,
    greeting: (n) => (n ? `Olá ${n},` : 'Olá,'),
    invitation: (d) => `${d} convida-o a completar online o relatório do seu veículo.`,
    button: 'Abrir o meu relatório',
    fallbackLink: 'Se o botão não funcionar, copie este link para o seu navegador:',
    signature: (d) => `A equipa ${d}`,
    sms: (n, d) => `${n ? `Olá ${n}, ` : 'Olá, '}${d} convida-o a completar o relatório do seu veículo:`,
  },
};

function textsFor(lang: string): LanguageTexts {
  return TEXTS[(NOTIFICATION_LANGUAGES as readonly string[]).includes(lang) ? (lang as NotificationLanguage) : 'fr'];
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

export function renderEmail(payload: NotificationPayload): EmailContent {
  const t = textsFor(payload.lang);
  const { dealership, link } = payload;
  const name = payload.client_name;
  const text = [t.greeting(name), '', t.invitation(dealership), '', link, '', t.signature(dealership), ''].join('\n');
  const html = `<!doctype html>
<html lang="${escapeHtml(payload.lang)}">
<body style="font-family: Arial, Helvetica, sans-serif; color: #1f2933; line-height: 1.5">
  <p>${escapeHtml(t.greeting(name))}</p>
  <p>${escapeHtml(t.invitation(dealership))}</p>
  <p><a href="${escapeHtml(link)}" style="display: inline-block; padding: 10px 18px; background: #1f6feb; color: #ffffff; text-decoration: none; border-radius: 4px">${escapeHtml(t.button)}</a></p>
  <p style="font-size: 12px; color: #52606d">${escapeHtml(t.fallbackLink)}<br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p>
  <p>${escapeHtml(t.signature(dealership))}</p>
</body>
</html>
`;
  return { subject: t.subject(dealership), text, html };
}

const PLACEHOLDER = /\{(name|link|dealership|folder_name|organization)\}/g;

/**
 * The SMS text: the lead's `custom_sms` with its placeholders filled (an absent value leaves
 * nothing) and the link appended when the template does not place it; else the language's text.
 */
export function renderSms(payload: NotificationPayload): string {
  if (payload.custom_sms) {
    const values: Record<string, string> = {
      name: payload.client_name ?? '',
      link: payload.link,
      dealership: payload.dealership,
      folder_name: payload.folder_name ?? '',
      organization: payload.organization,
    };
    const filled = payload.custom_sms.replace(PLACEHOLDER, (_, key: string) => values[key]!);
    return payload.custom_sms.includes('{link}') ? filled : `${filled.trimEnd()} ${payload.link}`;
  }
  return `${textsFor(payload.lang).sms(payload.client_name, payload.dealership)} ${payload.link}`;
}
