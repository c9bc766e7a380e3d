// Where the project's own files are (generated/openapi.json, the built docs), whether the code
// runs from the sources (src/…) or compiled (dist/src/…).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The folder holding package.json: two levels above src/platform, three above dist/src/platform. */
export const PROJECT_ROOT = path.resolve(here, here.split(path.sep).includes('dist') ? '../../..' : '../..');

export const projectPath = (...parts: string[]) => path.join(PROJECT_ROOT, ...parts);
