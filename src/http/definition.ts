import fs from 'node:fs';
import { projectPath } from '../platform/project-root.ts';

export const definitionPath = projectPath('generated/openapi.json');
let cached: any;

/** The bundled OpenAPI document that `npm run gen` writes from openapi/. */
export function loadDefinition(): any {
  cached ??= JSON.parse(fs.readFileSync(definitionPath, 'utf8'));
  return structuredClone(cached);
}
