import { readFileSync } from 'node:fs';
import path from 'node:path';
import { generateAll } from '../../scripts/codegen';
import { PROJECT_ROOT } from '../../src/config/project-root';

describe('GraphQL Code Generator output', () => {
  it('is up to date with schema.graphql and the operations (run `npm run codegen` when this fails)', async () => {
    const outputs = await generateAll();
    expect(outputs.size).toBeGreaterThan(0);
    for (const [filename, expected] of outputs) {
      const committed = readFileSync(path.join(PROJECT_ROOT, filename), 'utf8');
      expect({ filename, content: committed }).toEqual({ filename, content: expected });
    }
  });
});
