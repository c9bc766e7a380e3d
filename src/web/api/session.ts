// The signed-in person: the session (with its anti-forgery token), their workspaces and role in
// each, and what that role may do (the contract's x-roles; the API enforces them, the screens
// only hide what would be refused).
import { useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import type { Role, Session, WorkspaceSummary } from './types.ts';

export function useSession() {
  return useQuery({
    queryKey: keys.session,
    queryFn: () => unwrap(api.GET('/session')),
    staleTime: 5 * 60_000,
  });
}

/** The session once the signed-in layout has loaded it (that layout renders nothing before). */
export function useSignedIn(): Session {
  const { data } = useSession();
  if (!data) throw new Error('useSignedIn outside the signed-in layout');
  return data;
}

export function useMembership(workspaceId: string): WorkspaceSummary | undefined {
  return useSignedIn().workspaces.find((w) => w.id === workspaceId);
}

export const can = {
  /** Make and change links, tags, QR codes, uploads, imports; bulk add-tag and disable. */
  editLinks: (role: Role) => role !== 'ANALYST',
  deleteLinks: (role: Role) => role === 'OWNER' || role === 'ADMIN',
  /** Make, change, publish, unpublish and disable bio pages. */
  editPages: (role: Role) => role !== 'ANALYST',
  /** Delete a bio page, as deleting links. */
  deletePages: (role: Role) => role === 'OWNER' || role === 'ADMIN',
  /** Own API keys (a MEMBER manages their own). */
  makeKeys: (role: Role) => role !== 'ANALYST',
  /** Members, domains, campaigns. */
  administer: (role: Role) => role === 'OWNER' || role === 'ADMIN',
  changeRoles: (role: Role) => role === 'OWNER',
};

const LAST_WORKSPACE = 'shortlink.workspace';

/** The workspace the person last worked in, while they still belong to it. */
export function lastWorkspace(session: Session): WorkspaceSummary | undefined {
  let remembered: string | null = null;
  try {
    remembered = localStorage.getItem(LAST_WORKSPACE);
  } catch {
    // Storage can be off; the first workspace will do.
  }
  return session.workspaces.find((w) => w.id === remembered) ?? session.workspaces[0];
}

export function rememberWorkspace(id: string): void {
  try {
    localStorage.setItem(LAST_WORKSPACE, id);
  } catch {
    // Not remembering is fine.
  }
}
