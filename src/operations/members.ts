// People in workspaces as the operator adds them: a person without a password gets a one-time
// link to set one (24 hours); the old password keeps working until such a link is used, and
// using it ends every session.
import type { Config } from '../config.ts';
import type { Db } from '../db/knex.ts';
import * as accounts from '../db/repos/accounts.ts';
import * as workspaces from '../db/repos/workspaces.ts';
import type { Role } from '../domain/access.ts';
import { notFound } from '../domain/errors.ts';
import { normalizeEmail, setupUrl } from '../domain/sessions.ts';

type UrlConfig = Pick<Config, 'publicUrl'>;

/** Adds the person (made when new) to the workspace; the link to set a password when they have none. */
export async function addMember(
  knex: Db,
  config: UrlConfig,
  workspaceId: string,
  email: string,
  role: Role,
): Promise<{ id: string; setupUrl?: string }> {
  const id = await workspaces.addMember(knex, workspaceId, email, role);
  const user = await accounts.findUser(knex, id);
  if (user?.password_hash) return { id };
  return { id, setupUrl: setupUrl(config, await accounts.createSetupToken(knex, id, Date.now())) };
}

/** A one-time link for the person to set a new password. */
export async function resetPassword(knex: Db, config: UrlConfig, email: string): Promise<{ setupUrl: string }> {
  const user = await accounts.findUserByEmail(knex, email);
  if (!user) throw notFound(`no user has the e-mail address ${normalizeEmail(email)}`);
  return { setupUrl: setupUrl(config, await accounts.createSetupToken(knex, user.id, Date.now())) };
}
