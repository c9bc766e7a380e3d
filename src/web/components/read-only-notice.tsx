// Above a form a role may read but not change: says so, and which role it is.
import type { Role } from '../api/types.ts';
import { roleName } from '../lib/format.ts';

/** `what`: the thing read ("link"); `things`: what the role cannot change ("links"). */
export function ReadOnlyNotice({ role, what, things }: { role: Role; what: string; things: string }) {
  return (
    <p className="notice notice-info">
      You can read this {what}. Your role ({roleName(role)}) cannot change {things}.
    </p>
  );
}
