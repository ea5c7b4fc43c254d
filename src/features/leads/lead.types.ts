import { ArgsType, Field, ObjectType, registerEnumType } from 'type-graphql';
import { Rules } from '../../shared/schema/input-rules';
import { UUID } from '../../shared/schema/scalars';
import { NOTIFICATION_LANGUAGES, type NotificationLanguage } from '../notifications/templates';

export const SMS_PLACEHOLDERS = ['name', 'link', 'dealership', 'folder_name', 'organization'] as const;
/** Longest custom SMS template: three concatenated GSM-7 segments' worth, before placeholders. */
export const CUSTOM_SMS_MAX_LENGTH = 480;
/** Names and folder names appear in the notifications: long enough for any real one, short enough for an SMS. */
export const LEAD_NAME_MAX_LENGTH = 100;

/** Languages of the lead notifications (api-behaviour.md): those the templates have texts in. */
export const LeadLanguage = Object.fromEntries(NOTIFICATION_LANGUAGES.map((lang) => [lang, lang])) as { [L in NotificationLanguage]: L };
export type LeadLanguage = NotificationLanguage;
registerEnumType(LeadLanguage, { name: 'LeadLanguage', description: 'language of the lead notifications' });

/** Flat arguments (no input object), so that the REST body maps onto them 1:1 (spec 4.3). */
@ArgsType()
export class CreateLeadArgs {
  @Field(() => UUID, { description: "id of a dealership of the key's organization" })
  dealership!: string;

  @Field(() => String, { nullable: true, description: 'client e-mail; stored on the report, used for the e-mail notification' })
  @Rules({ kind: 'email' }, { kind: 'requiredWhen', flag: 'sendEmail' })
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'client phone; normalized to E.164 (region from lang, else FR)' })
  @Rules({ kind: 'length', max: 32 }, { kind: 'phone', languageArgument: 'lang' }, { kind: 'requiredWhen', flag: 'sendPhone' })
  phone?: string | null;

  @Field(() => String, { nullable: true, description: 'client name, shown in the notifications' })
  @Rules({ kind: 'length', max: LEAD_NAME_MAX_LENGTH })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'report folder alias' })
  @Rules({ kind: 'length', max: LEAD_NAME_MAX_LENGTH })
  folder_name?: string | null;

  @Field(() => LeadLanguage, { defaultValue: LeadLanguage.fr, description: 'language of the notifications' })
  lang!: LeadLanguage;

  @Field(() => String, {
    nullable: true,
    description:
      'custom SMS body, up to 480 characters; placeholders {name}, {link}, {dealership}, {folder_name}, {organization}; the link is appended when {link} is absent',
  })
  @Rules({ kind: 'length', max: CUSTOM_SMS_MAX_LENGTH }, { kind: 'placeholders', allowed: SMS_PLACEHOLDERS })
  custom_sms?: string | null;

  @Field(() => Boolean, { defaultValue: false, description: 'send the report link by e-mail (requires email)' })
  sendEmail!: boolean;

  @Field(() => Boolean, { defaultValue: false, description: 'send the report link by SMS (requires phone)' })
  sendPhone!: boolean;
}

@ObjectType('CreatedLead', { simpleResolvers: true, description: 'spec 4.3: the report token and its application link' })
export class CreatedLead {
  @Field(() => String)
  token!: string;

  @Field(() => String)
  link!: string;
}
