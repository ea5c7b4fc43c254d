import { client } from './generated/client.gen';
import { createLead, report as fetchReport, reports } from './generated/sdk.gen';
import { API_KEY, BASE_URL, DEALERSHIP_ID, fail, report, SOLD } from './shared';

client.setConfig({ baseUrl: BASE_URL, auth: () => API_KEY });
const page = await reports({ query: { state__contains: SOLD, limit: 1 } });
if (!page.data) fail('reports', page.error);
const created = await createLead({ body: { dealership: DEALERSHIP_ID, name: 'Matrix Client' } });
if (!created.data) fail('createLead', created.error);
const lead = await fetchReport({ path: { report_id: created.data.token } });
if (!lead.data) fail('report', lead.error);
report({ sold: page.data.total ?? -1, lead: created.data.token, folderEstimated: lead.data.state.folder_estimated });
