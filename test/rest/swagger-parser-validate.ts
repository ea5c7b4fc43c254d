/**
 * `SwaggerParser.validate(doc)` for jest: @apidevtools/swagger-parser loads the ESM-only
 * json-schema-ref-parser, which jest's CommonJS runtime cannot `require` on Node 20. A plain
 * Node process can, so the validation runs there, on the document sent through stdin.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '..', '..');

const VALIDATOR = `
import SwaggerParser from '@apidevtools/swagger-parser';
let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (text += chunk));
process.stdin.on('end', async () => {
  try {
    const api = await SwaggerParser.validate(JSON.parse(text));
    process.stdout.write(JSON.stringify({ ok: true, openapi: api.openapi }));
  } catch (error) {
    process.stdout.write(JSON.stringify({ ok: false, message: String(error && error.message) }));
  }
});
`;

export type SwaggerValidation = { ok: true; openapi: string } | { ok: false; message: string };

export function validateWithSwaggerParser(document: object): Promise<SwaggerValidation> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', VALIDATOR], {
      cwd: REPO_ROOT,
      // jest's NODE_OPTIONS (--experimental-vm-modules) are not wanted in the child.
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(stdout) as SwaggerValidation);
      } catch {
        reject(new Error(`swagger-parser child exited ${code}: ${stderr || stdout}`));
      }
    });
    // structuredClone: what the caller keeps is never the object handed over, as with validate().
    child.stdin.end(JSON.stringify(structuredClone(document)));
  });
}
