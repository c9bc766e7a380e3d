// Seeds workspaces, members and keys straight through the repositories.
import type { Knex } from 'knex';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { mayHoldScope, type Plan, type Role, type Scope } from '../../src/domain/access';
import { addMember, createWorkspace, setRole } from '../../src/db/repos/workspaces';
import { createKey } from '../../src/db/repos/api-keys';
import { addAsset } from '../../src/db/repos/workspace-objects';
import type { Engine } from '../../src/db/knex';
import { startTestServer, type TestServer } from './server';

export const ALL_LINK_SCOPES: Scope[] = ['links:read', 'links:write'];
/** Every scope a key of the public API may hold: links, conversions and webhooks, read and write. */
export const API_SCOPES: Scope[] = [
  'links:read',
  'links:write',
  'conversions:read',
  'conversions:write',
  'webhooks:read',
  'webhooks:write',
];
/** What a key needs to make links and to record and read conversions. */
export const DATA_SCOPES: Scope[] = ['links:read', 'links:write', 'conversions:read', 'conversions:write'];

export interface Seeded {
  workspaceId: string;
  userId: string;
  key: string;
  keyId: string;
}

let counter = 0;
export async function seedWorkspace(
  knex: Knex,
  opts: { plan?: Plan; role?: Role; scopes?: Scope[]; expiresAt?: number | null } = {},
): Promise<Seeded> {
  const workspaceId = await createWorkspace(knex, `Workspace ${++counter}`, opts.plan ?? 'growth');
  const userId = await addMember(knex, workspaceId, `user${counter}-${Date.now()}@example.com`, opts.role ?? 'OWNER');
  const { id: keyId, key } = await createKey(
    knex,
    workspaceId,
    userId,
    opts.scopes ?? ALL_LINK_SCOPES,
    opts.expiresAt ?? null,
  );
  return { workspaceId, userId, key, keyId };
}

/**
 * A second key for another member of the same workspace. A role that may not hold the scopes
 * (an ANALYST holds no key) gets a key minted while the person was ADMIN, then is demoted: the
 * interface's case of a key whose person's role changed.
 */
export async function seedMemberKey(knex: Knex, workspaceId: string, role: Role, scopes: Scope[] = ALL_LINK_SCOPES) {
  const mintedAs: Role = scopes.every((s) => mayHoldScope(role, s)) ? role : 'ADMIN';
  const userId = await addMember(knex, workspaceId, `member${++counter}-${Date.now()}@example.com`, mintedAs);
  const { id: keyId, key } = await createKey(knex, workspaceId, userId, scopes, null);
  if (mintedAs !== role) await setRole(knex, workspaceId, userId, role);
  return { userId, key, keyId };
}

/** A new key with DATA_SCOPES for someone already a member of the workspace. */
export async function dataKey(knex: Knex, workspaceId: string, userId: string): Promise<string> {
  return (await createKey(knex, workspaceId, userId, DATA_SCOPES, null)).key;
}

/**
 * An image the workspace hosts (the row `shortlink asset add` writes; no file is needed for
 * previewImage's check), as its URL under `assetBaseUrl`.
 */
export async function hostImage(
  knex: Knex,
  workspaceId: string,
  assetBaseUrl: string,
  extension = '.png',
): Promise<string> {
  const { fileName } = await addAsset(
    knex,
    workspaceId,
    extension,
    extension === '.png' ? 'image/png' : 'image/jpeg',
    () => undefined,
  );
  return `${assetBaseUrl}${fileName}`;
}

/**
 * For a describe block: a test server on `engine` (`opts` as startTestServer takes them) with one
 * seeded workspace, started before its tests and stopped after them. With `keyEachTest`, the owner
 * gets a new key of those scopes before each test: each key has its own requests-a-minute budget.
 * The object returned is filled in by the time the tests run.
 */
export function serverWithOwner(
  engine: Engine,
  opts?: Parameters<typeof startTestServer>[1],
  keyEachTest?: Scope[],
): { server: TestServer; owner: Seeded } {
  const fixture = {} as { server: TestServer; owner: Seeded };
  beforeAll(async () => {
    fixture.server = await startTestServer(engine, opts);
    fixture.owner = await seedWorkspace(fixture.server.services.db.knex);
  });
  if (keyEachTest) {
    beforeEach(async () => {
      const { owner } = fixture;
      const fresh = await createKey(
        fixture.server.services.db.knex,
        owner.workspaceId,
        owner.userId,
        keyEachTest,
        null,
      );
      fixture.owner = { ...owner, ...fresh };
    });
  }
  afterAll(async () => fixture.server?.stop());
  return fixture;
}
