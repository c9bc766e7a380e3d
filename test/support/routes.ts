// The places where a contract's paths overlap: a path fixed where a sibling holds a template
// (`/healthz` and `/{slug}`, `.../links/export` and `.../links/{linkId}`). A request to the fixed
// path belongs to it for every method, so each method the sibling has and it lacks must be a
// 405 naming the fixed path's methods, never the sibling's operation.
import { HTTP_METHODS } from './fuzz-openapi';

export interface ShadowedPath {
  /** The fixed path (it may hold templates elsewhere, such as {workspaceId}). */
  path: string;
  /** The templated sibling it also fits. */
  sibling: string;
  /** The methods the sibling has and the path lacks: each must be a 405. */
  methods: string[];
  /** The path's own methods: the 405's Allow. */
  allow: string[];
}

const segments = (path: string) => path.split('/');
const isTemplate = (segment: string) => segment.includes('{');

/** Whether `path`, its own templates filled in, also fits `template`, and is fixed further left. */
function shadows(path: string, template: string): boolean {
  const a = segments(path);
  const b = segments(template);
  if (a.length !== b.length) return false;
  let firstDifference = 0;
  for (let i = 0; i < a.length; i++) {
    if (!isTemplate(b[i]) && !isTemplate(a[i]) && a[i] !== b[i]) return false;
    if (!isTemplate(b[i]) && isTemplate(a[i])) return false;
    if (!firstDifference && isTemplate(b[i]) && !isTemplate(a[i])) firstDifference = i;
  }
  return firstDifference > 0;
}

const methodsOf = (item: Record<string, unknown>) => HTTP_METHODS.filter((m) => item[m]).map((m) => m.toUpperCase());

export function shadowedPaths(document: { paths: Record<string, Record<string, unknown>> }): ShadowedPath[] {
  const out: ShadowedPath[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [sibling, siblingItem] of Object.entries(document.paths)) {
      if (path === sibling || !shadows(path, sibling)) continue;
      const allow = methodsOf(item);
      out.push({ path, sibling, allow, methods: methodsOf(siblingItem).filter((m) => !allow.includes(m)) });
    }
  }
  return out;
}
