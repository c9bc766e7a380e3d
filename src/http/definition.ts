import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const definitionPath = path.join(root, 'generated/openapi.json');
let cached: any;

/** The bundled OpenAPI document that `npm run gen` writes from openapi/. */
export function loadDefinition(): any {
  cached ??= JSON.parse(fs.readFileSync(definitionPath, 'utf8'));
  return structuredClone(cached);
}
