import createClient from 'openapi-fetch';
import type { paths } from './generated/api';
import { API_KEY, BASE_URL, DEALERSHIP_ID, fail, report, SOLD } from './shared';

const client = createClient<paths>({ baseUrl: BASE_URL, headers: { 'x-api-key': API_KEY } });
const page = await client.GET('/public/reports/', { params: { query: { state__contains: SOLD, limit: 1 } } });
if (!page.data) fail('reports', page.error);
const created = await client.POST('/public/reports/create-lead', { body: { dealership: DEALERSHIP_ID, name: 'Matrix Client' } });
if (!created.data) fail('createLead', created.error);
const lead = await client.GET('/public/reports/{report_id}', { params: { path: { report_id: created.data.token } } });
if (!lead.data) fail('report', lead.error);
report({ sold: page.data.total ?? -1, lead: created.data.token, folderEstimated: lead.data.state.folder_estimated });
