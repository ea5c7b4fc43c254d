/** What the outbox keeps for one message: everything the templates need, rendered at send time. */
export interface NotificationPayload {
  lang: string;
  link: string;
  client_name: string | null;
  dealership: string;
  organization: string;
  folder_name: string | null;
  custom_sms: string | null;
}
