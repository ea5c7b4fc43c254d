import { ArgsType, Field, ObjectType, registerEnumType } from 'type-graphql';
import { UUID } from '../../shared/schema/scalars';

/** Languages of the lead notifications (decisions.md). */
export enum LeadLanguage {
  fr = 'fr',
  en = 'en',
  es = 'es',
  de = 'de',
  it = 'it',
  nl = 'nl',
  pt = 'pt',
}
registerEnumType(LeadLanguage, { name: 'LeadLanguage', description: 'language of the lead notifications' });

/** Flat arguments (no input object), so that the REST body maps onto them 1:1 (spec 4.3). */
@ArgsType()
export class CreateLeadArgs {
  @Field(() => UUID, { description: "id of a dealership of the key's organization" })
  dealership!: string;

  @Field(() => String, { nullable: true, description: 'client e-mail; stored on the report, used for the e-mail notification' })
  email?: string | null;

  @Field(() => String, { nullable: true, description: 'client phone; normalized to E.164 (region from lang, else FR)' })
  phone?: string | null;

  @Field(() => String, { nullable: true, description: 'client name, shown in the notifications' })
  name?: string | null;

  @Field(() => String, { nullable: true, description: 'report folder alias' })
  folder_name?: string | null;

  @Field(() => LeadLanguage, { defaultValue: LeadLanguage.fr, description: 'language of the notifications' })
  lang!: LeadLanguage;

  @Field(() => String, {
    nullable: true,
    description:
      'custom SMS body, up to 480 characters; placeholders {name}, {link}, {dealership}, {folder_name}, {organization}; the link is appended when {link} is absent',
  })
  custom_sms?: string | null;

  @Field(() => Boolean, { defaultValue: false, description: 'send the report link by e-mail (requires email)' })
  sendEmail!: boolean;

  @Field(() => Boolean, { defaultValue: false, description: 'send the report link by SMS (requires phone)' })
  sendPhone!: boolean;
}

@ObjectType('CreatedLead', { description: 'spec 4.3: the report token and its application link' })
export class CreatedLead {
  @Field(() => String)
  token!: string;

  @Field(() => String)
  link!: string;
}
