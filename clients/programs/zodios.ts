import { createApiClient } from './generated/api';
import { API_KEY, BASE_URL, DEALERSHIP_ID, report, SOLD } from './shared';

// Zodios validates every response against the generated zod schema: a report whose state holds
// nulls must pass it (it failed with the OpenAPI 3.0 document).
const api = createApiClient(BASE_URL, { axiosConfig: { headers: { 'x-api-key': API_KEY } } });
const page = await api.reports({ queries: { state__contains: SOLD, limit: 1 } });
const created = await api.createLead({ dealership: DEALERSHIP_ID, name: 'Matrix Client' });
const lead = await api.report({ params: { report_id: created.token } });
report({ sold: page.total ?? -1, lead: created.token, folderEstimated: lead.state.folder_estimated });
