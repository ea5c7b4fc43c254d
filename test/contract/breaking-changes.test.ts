/**
 * The current contract (schema.graphql, openapi.json) against the last released one
 * (contract/released/): every breaking change for clients must be announced in CHANGELOG.md's
 * "Unreleased" section. And the checker itself can say no: a removed response field, a removed
 * GraphQL field, a newly required parameter are found, and fail until announced.
 */
import { checkContract, readContractFiles } from '../../contract/breaking-changes';

describe('breaking changes since the released contract', () => {
  it('are all announced in CHANGELOG.md (Unreleased)', async () => {
    const { unannounced } = await checkContract(readContractFiles());
    expect(unannounced).toEqual([]);
  });

  it('a deliberately breaking change fails until it is announced', async () => {
    const files = readContractFiles();
    const openApi = structuredClone(files.openApi);
    delete openApi.components.schemas.Report.properties.valid;
    openApi.components.schemas.Report.required = openApi.components.schemas.Report.required.filter((n: string) => n !== 'valid');
    const limit = openApi.paths['/public/reports/'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    limit.required = true;
    limit.schema.maximum = 500;
    const sdl = files.sdl.replace(/^\s*valid: Boolean!\n/m, '');
    expect(sdl).not.toBe(files.sdl);
    const changed = { ...files, openApi, sdl };
    const { unannounced } = await checkContract(changed);
    expect(unannounced).toEqual(
      expect.arrayContaining([
        'OpenAPI: GET /public/reports/{report_id} 200 field valid removed',
        'OpenAPI: GET /public/reports/ query limit became required',
        'OpenAPI: GET /public/reports/ query limit maximum 1000 → 500',
        expect.stringMatching(/^GraphQL: Field 'valid' .*was removed/),
      ]),
    );
    const announced = {
      ...changed,
      changelog: files.changelog.replace('## Unreleased\n', `## Unreleased\n${unannounced.map((u) => `- \`${u}\``).join('\n')}\n`),
    };
    expect((await checkContract(announced)).unannounced).toEqual([]);
  });

  it('the released documents are real ones (not the current files copied by mistake)', () => {
    const files = readContractFiles();
    expect(files.releasedOpenApi.openapi).toBe('3.0.3');
    expect(files.releasedSdl).toContain('type Query');
  });
});
