// `shortlink goal create|update|set-status`, run as an operator runs it (node bin/shortlink.mjs
// in a child process) on SQLite: the JSON each prints, the rows it writes, the definition
// version it raises, and its one-line failures with their exit codes (2 for a usage mistake,
// 1 for something that does not exist). The reports these goals give are proven in
// test/api/goals.test.ts on every engine.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateLatest, openDatabase, type Database } from '../../src/db/knex';
import { addMember, createWorkspace } from '../../src/db/repos/workspaces';
import { createCampaign, createQrCode } from '../../src/db/repos/workspace-objects';
import { expectFailure, expectJsonLine, inBatches, runCli } from '../support/cli';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { goalDefinition, linkRow } from '../support/stored-rows';

describe('shortlink goal commands (sqlite)', () => {
  let database: TestDatabase;
  let db: Database;
  let dataDir: string;
  let env: Record<string, string>;
  let W: string;
  let W2: string;
  let L: string;
  let L2: string;
  let Q: string;
  let C: string;
  let foreignLink: string;
  let foreignQr: string;
  let foreignCampaign: string;
  const knex = () => db.knex;

  const cli = (args: string[]) => runCli(args, env);
  const ok = async (args: string[], keys: string[]) => expectJsonLine(args, await cli(args), keys);
  /** `goal create` of a purchase goal in W with a target of 10 EUR (minor units); `scope` flags go before the target. */
  const valueGoal = (name: string, ...scope: string[]) =>
    ok(
      [
        'goal',
        'create',
        '--workspace',
        W,
        '--name',
        name,
        '--type',
        'purchase',
        ...scope,
        '--target-value-minor',
        '10',
        '--target-currency',
        'EUR',
      ],
      ['id'],
    );
  const fails = async (args: string[], message: RegExp, code: number) => {
    const r = await cli(args);
    expectFailure(args, r, message);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(code);
  };
  const row = (id: string) => knex()('goals').where({ id }).first();
  const goalCount = async () => Number((await knex()('goals').count({ c: '*' }))[0].c);

  async function link(workspaceId: string, slug: string) {
    const userId = await addMember(knex(), workspaceId, `${slug}@example.com`, 'OWNER');
    const id = `lnk_goalcli${Math.random().toString(36).slice(2, 12)}`;
    await knex()('links').insert(
      linkRow({ id, workspace_id: workspaceId, created_by: userId, slug, original_url: 'https://example.com/' }),
    );
    return id;
  }

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    db = openDatabase(database.url, { poolMax: 2 });
    await migrateLatest(db);
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'shortlink-goalcli-'));
    env = { DATABASE_URL: database.url, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    W = await createWorkspace(knex(), 'Goals', 'growth');
    W2 = await createWorkspace(knex(), 'Elsewhere', 'growth');
    L = await link(W, 'goal-a');
    L2 = await link(W, 'goal-b');
    Q = (await createQrCode(knex(), W, L)).id;
    C = await createCampaign(knex(), W, 'Spring');
    foreignLink = await link(W2, 'goal-x');
    foreignQr = (await createQrCode(knex(), W2, foreignLink)).id;
    foreignCampaign = await createCampaign(knex(), W2, 'Theirs');
  });
  afterAll(async () => {
    await db?.knex.destroy();
    await database?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('goal create prints {id} and stores an ACTIVE goal at definition version 1', async () => {
    const before = Date.now();
    const { id } = await ok(['goal', 'create', '--workspace', W, '--name', 'Sign-ups', '--type', 'signup'], ['id']);
    expect(id).toMatch(/^goal_/);
    const r = await row(id);
    // Every field the command was not given is stored empty: a goal of no scope, target or window.
    expect(r).toMatchObject({
      workspace_id: W,
      ...goalDefinition({ name: 'Sign-ups', type: 'signup' }),
      status: 'ACTIVE',
      archived_at: null,
      definition_version: 1,
    });
    expect(Number(r.created_at)).toBeGreaterThanOrEqual(before);
    expect(Number(r.definition_updated_at)).toBe(Number(r.created_at));
  });

  it('goal create takes every flag', async () => {
    const cases: Array<[string[], Record<string, unknown>]> = [
      [['--type', 'custom', '--custom-name', 'newsletter_optin'], { type: 'custom', custom_name: 'newsletter_optin' }],
      [['--type', 'custom'], { type: 'custom', custom_name: null }],
      [['--type', 'purchase', '--link', L], { link_id: L, qr_code_id: null, campaign_id: null }],
      [['--type', 'signup', '--qr', Q], { qr_code_id: Q, link_id: null }],
      [['--type', 'lead', '--campaign', C], { campaign_id: C, link_id: null }],
      [['--type', 'booking', '--target-count', '25'], { target_count: 25 }],
      [
        ['--type', 'purchase', '--target-value-minor', '500000', '--target-currency', 'EUR'],
        { target_value_minor: 500000, target_currency: 'EUR' },
      ],
      [
        ['--type', 'purchase', '--target-value-minor', '0', '--target-currency', 'JPY'],
        { target_value_minor: 0, target_currency: 'JPY' },
      ],
      [
        ['--type', 'download', '--window-start', '2027-01-31', '--window-end', '2027-02-28T12:30:00+02:00'],
        { window_start: Date.UTC(2027, 0, 31), window_end: Date.UTC(2027, 1, 28, 10, 30) },
      ],
      [
        ['--type', 'download', '--window-start', '2027-01-31T00:00:00.250Z'],
        { window_start: Date.UTC(2027, 0, 31, 0, 0, 0, 250), window_end: null },
      ],
    ];
    await inBatches(cases, 4, async ([flags, expected]) => {
      const { id } = await ok(['goal', 'create', '--workspace', W, '--name', `G ${flags.join(' ')}`, ...flags], ['id']);
      const r = await row(id);
      for (const [k, v] of Object.entries(expected))
        expect(r[k] === null ? null : typeof v === 'number' ? Number(r[k]) : r[k], `${flags.join(' ')}: ${k}`).toEqual(
          v,
        );
    });
  });

  it('goal update prints {id, definitionVersion}, raising the version only when matching changes', async () => {
    const { id } = await ok(
      ['goal', 'create', '--workspace', W, '--name', 'Versioned', '--type', 'purchase', '--link', L],
      ['id'],
    );
    let version = 1;
    const steps: Array<[string[], boolean, Record<string, unknown>]> = [
      [['--name', 'Renamed'], false, { name: 'Renamed' }],
      [['--target-count', '10'], false, { target_count: 10 }],
      [
        ['--target-value-minor', '100', '--target-currency', 'USD'],
        false,
        { target_value_minor: 100, target_currency: 'USD' },
      ],
      [['--type', 'purchase'], false, { type: 'purchase' }],
      [['--type', 'signup'], true, { type: 'signup' }],
      [['--link', L2], true, { link_id: L2 }],
      [['--link', L2], false, { link_id: L2 }],
      [['--campaign', C], true, { campaign_id: C, link_id: null }],
      [['--window-start', '2027-03-01'], true, { window_start: Date.UTC(2027, 2, 1) }],
      [['--window-start', '2027-03-01T00:00:00Z'], false, { window_start: Date.UTC(2027, 2, 1) }],
      [['--window-end', '2027-04-01'], true, { window_end: Date.UTC(2027, 3, 1) }],
      [['--type', 'custom', '--custom-name', 'webinar'], true, { type: 'custom', custom_name: 'webinar' }],
      [['--custom-name', 'trial'], true, { custom_name: 'trial' }],
      [['--custom-name', ''], true, { custom_name: null }],
      [['--type', 'lead'], true, { type: 'lead', custom_name: null }],
      [['--window-start', ''], true, { window_start: null }],
    ];
    for (const [flags, bumps, expected] of steps) {
      const before = await row(id);
      if (bumps) version++;
      const out = await ok(['goal', 'update', '--id', id, ...flags], ['id', 'definitionVersion']);
      expect(out, flags.join(' ')).toEqual({ id, definitionVersion: version });
      const r = await row(id);
      expect(Number(r.definition_version), flags.join(' ')).toBe(version);
      for (const [k, v] of Object.entries(expected))
        expect(r[k] === null ? null : typeof v === 'number' ? Number(r[k]) : r[k], `${flags.join(' ')}: ${k}`).toEqual(
          v,
        );
      if (bumps) expect(Number(r.definition_updated_at)).toBeGreaterThanOrEqual(Number(before.updated_at));
      else expect(Number(r.definition_updated_at), flags.join(' ')).toBe(Number(before.definition_updated_at));
    }
    expect(await row(id)).toMatchObject({ name: 'Renamed', target_currency: 'USD', status: 'ACTIVE' });
  });

  it('goal update --type of a named custom goal to another type clears its custom name', async () => {
    // A goal of another type has no customName (Goal.customName: "always null for other types").
    const { id } = await ok(
      ['goal', 'create', '--workspace', W, '--name', 'Custom to lead', '--type', 'custom', '--custom-name', 'webinar'],
      ['id'],
    );
    expect(await ok(['goal', 'update', '--id', id, '--type', 'lead'], ['id', 'definitionVersion'])).toEqual({
      id,
      definitionVersion: 2,
    });
    expect(await row(id)).toMatchObject({ type: 'lead', custom_name: null, definition_version: 2 });
  });

  it('goal set-status prints {id, definitionVersion}, sets archivedAt when archived, and leaves the version alone', async () => {
    const { id } = await ok(['goal', 'create', '--workspace', W, '--name', 'Statuses', '--type', 'lead'], ['id']);
    await ok(['goal', 'update', '--id', id, '--type', 'booking'], ['id', 'definitionVersion']);
    expect(await ok(['goal', 'set-status', '--id', id, '--status', 'PAUSED'], ['id', 'definitionVersion'])).toEqual({
      id,
      definitionVersion: 2,
    });
    expect(await row(id)).toMatchObject({ status: 'PAUSED', archived_at: null });
    const before = Date.now();
    expect(await ok(['goal', 'set-status', '--id', id, '--status', 'ARCHIVED'], ['id', 'definitionVersion'])).toEqual({
      id,
      definitionVersion: 2,
    });
    const archived = await row(id);
    expect(archived.status).toBe('ARCHIVED');
    expect(Number(archived.archived_at)).toBeGreaterThanOrEqual(before);
    expect(await ok(['goal', 'set-status', '--id', id, '--status', 'ACTIVE'], ['id', 'definitionVersion'])).toEqual({
      id,
      definitionVersion: 2,
    });
    expect(await row(id)).toMatchObject({ status: 'ACTIVE', archived_at: null, definition_version: 2 });
  });

  // [title, arguments, message, exit code]; W is the workspace, L/Q/C its link, QR code and campaign.
  const createCases: Array<[string, string[], RegExp, number]> = [
    [
      'an unknown type',
      ['--type', 'clicks'],
      /--type must be one of signup, lead, purchase, booking, download, custom/,
      2,
    ],
    ['no type', [], /--type is required/, 2],
    [
      'a custom name without --type custom',
      ['--type', 'purchase', '--custom-name', 'x'],
      /--custom-name goes with --type custom/,
      2,
    ],
    [
      'a custom name over 40 characters',
      ['--type', 'custom', '--custom-name', 'c'.repeat(41)],
      /--custom-name must be at most 40 characters/,
      2,
    ],
    ['two scopes', ['--type', 'purchase', '--link', 'L', '--qr', 'Q'], /at most one of --link, --qr, --campaign/, 2],
    ['three scopes', ['--type', 'purchase', '--link', 'L', '--qr', 'Q', '--campaign', 'C'], /at most one of/, 2],
    [
      'a value target without a currency',
      ['--type', 'purchase', '--target-value-minor', '100'],
      /--target-value-minor and --target-currency go together/,
      2,
    ],
    ['a currency without a value target', ['--type', 'purchase', '--target-currency', 'EUR'], /go together/, 2],
    [
      'an unknown currency',
      ['--type', 'purchase', '--target-value-minor', '100', '--target-currency', 'QQQ'],
      /--target-currency must be an ISO 4217 code/,
      2,
    ],
    ['a negative target count', ['--type', 'purchase', '--target-count', '-1'], /--target-count/, 2],
    [
      'a fractional target count',
      ['--type', 'purchase', '--target-count', '1.5'],
      /--target-count must be a whole number/,
      2,
    ],
    [
      'a word as target count',
      ['--type', 'purchase', '--target-count', 'ten'],
      /--target-count must be a whole number/,
      2,
    ],
    [
      'a target count of 0 (targetCount is at least 1)',
      ['--type', 'purchase', '--target-count', '0'],
      /--target-count/,
      2,
    ],
    [
      'a fractional value target',
      ['--type', 'purchase', '--target-value-minor', '9.99', '--target-currency', 'EUR'],
      /--target-value-minor must be a whole number/,
      2,
    ],
    [
      'a window end before its start',
      ['--type', 'purchase', '--window-start', '2027-02-01', '--window-end', '2027-01-01'],
      /--window-end must be after --window-start/,
      2,
    ],
    [
      'an empty window',
      ['--type', 'purchase', '--window-start', '2027-02-01', '--window-end', '2027-02-01T00:00:00Z'],
      /--window-end must be after --window-start/,
      2,
    ],
    [
      'a word as window start',
      ['--type', 'purchase', '--window-start', 'tomorrow'],
      /--window-start must be an ISO 8601/,
      2,
    ],
    [
      'a day that does not exist',
      ['--type', 'purchase', '--window-end', '2027-02-30'],
      /--window-end must be an ISO 8601/,
      2,
    ],
    ['an unknown flag', ['--type', 'purchase', '--owner', 'me'], /Unknown option '--owner'/, 2],
    ['an unknown link', ['--type', 'purchase', '--link', 'lnk_nope'], /link "lnk_nope" not found/, 1],
    ["another workspace's link", ['--type', 'purchase', '--link', 'FL'], /link .* not found in workspace/, 1],
    ["another workspace's QR code", ['--type', 'purchase', '--qr', 'FQ'], /QR code .* not found in workspace/, 1],
    ['an unknown campaign', ['--type', 'purchase', '--campaign', 'cmp_nope'], /campaign "cmp_nope" not found/, 1],
    [
      "another workspace's campaign",
      ['--type', 'purchase', '--campaign', 'FC'],
      /campaign .* not found in workspace/,
      1,
    ],
  ];
  const subst = (a: string) =>
    (({ W, L, Q, C, FL: foreignLink, FQ: foreignQr, FC: foreignCampaign }) as Record<string, string>)[a] ?? a;

  it.concurrent.each(createCases)(
    'goal create with %s fails with a one-line message and creates nothing',
    async (title, flags, message, code) => {
      const name = `Bad: ${title}`;
      await fails(['goal', 'create', '--workspace', W, '--name', name, ...flags.map(subst)], message, code);
      expect(await knex()('goals').where({ name }).first()).toBeUndefined();
    },
  );

  it('goal create in an unknown workspace, or without a name, fails', async () => {
    const before = await goalCount();
    const cases: Array<[string[], RegExp, number]> = [
      [
        ['goal', 'create', '--workspace', 'ws_nope', '--name', 'X', '--type', 'purchase'],
        /workspace ws_nope not found/,
        1,
      ],
      [['goal', 'create', '--workspace', W, '--type', 'purchase'], /--name is required/, 2],
      [['goal', 'create', '--workspace', W, '--name', '   ', '--type', 'purchase'], /--name is required/, 2],
      [
        ['goal', 'create', '--workspace', W, '--name', 'n'.repeat(201), '--type', 'purchase'],
        /--name must be 1 to 200 characters/,
        2,
      ],
      [['goal', 'create', '--name', 'X', '--type', 'purchase'], /--workspace is required/, 2],
    ];
    await inBatches(cases, 5, ([args, message, code]) => fails(args, message, code));
    expect(await goalCount()).toBe(before);
  });

  it('goal update and set-status refuse bad input and change nothing', async () => {
    const { id } = await valueGoal('Stable', '--link', L);
    const before = await row(id);
    const cases: Array<[string[], RegExp, number]> = [
      [['goal', 'update', '--id', 'goal_nope', '--name', 'x'], /goal goal_nope not found/, 1],
      [['goal', 'update', '--name', 'x'], /--id is required/, 2],
      [['goal', 'update', '--id', id, '--type', 'clicks'], /--type must be one of/, 2],
      [['goal', 'update', '--id', id, '--custom-name', 'webinar'], /--custom-name goes with --type custom/, 2],
      [['goal', 'update', '--id', id, '--link', L2, '--campaign', C], /at most one of/, 2],
      [['goal', 'update', '--id', id, '--link', foreignLink], /not found in workspace/, 1],
      [
        ['goal', 'update', '--id', id, '--window-start', '2027-05-01', '--window-end', '2027-04-01'],
        /--window-end must be after --window-start/,
        2,
      ],
      [['goal', 'set-status', '--id', id, '--status', 'DONE'], /--status must be one of ACTIVE, PAUSED, ARCHIVED/, 2],
      [['goal', 'set-status', '--id', id, '--status', 'DELETED'], /--status must be one of/, 2],
      [['goal', 'set-status', '--id', id], /--status is required/, 2],
      [['goal', 'set-status', '--id', 'goal_nope', '--status', 'PAUSED'], /goal goal_nope not found/, 1],
    ];
    await inBatches(cases, 4, ([args, message, code]) => fails(args, message, code));
    expect(await row(id)).toEqual(before);
  });

  it('goal update refuses to clear one half of a value target and keep the other', async () => {
    const { id } = await valueGoal('Value pair');
    const before = await row(id);
    await fails(
      ['goal', 'update', '--id', id, '--target-currency', ''],
      /--target-value-minor and --target-currency go together/,
      2,
    );
    await fails(
      ['goal', 'update', '--id', id, '--target-value-minor', ''],
      /--target-value-minor and --target-currency go together/,
      2,
    );
    expect(await row(id)).toEqual(before);
    // Clearing both together is fine.
    expect(
      await ok(
        ['goal', 'update', '--id', id, '--target-value-minor', '', '--target-currency', ''],
        ['id', 'definitionVersion'],
      ),
    ).toEqual({ id, definitionVersion: 1 });
    expect(await row(id)).toMatchObject({ target_value_minor: null, target_currency: null });
  });
});
