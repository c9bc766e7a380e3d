// What the bundled OpenAPI document (generated/openapi.json) tells a client that the running
// service cannot: where the values a request needs come from.
import { describe, expect, it } from 'vitest';
import { document } from '../support/fuzz-openapi';
import { runCli } from '../support/cli';

describe('the OpenAPI document', () => {
  it('says where Variant A\'s workspaceId is found, naming a command the command line has', async () => {
    const createWebhook = document.paths['/api/webhooks'].post;
    const workspaceId = document.components.schemas.WebhookCreateA.properties.workspaceId;
    for (const text of [createWebhook.description, workspaceId.description]) {
      expect(text).toContain('`shortlink workspace list`');
      expect(text).toMatch(/dashboard's workspace settings/);
    }
    // The command exists: an unknown one fails with a usage error listing the known ones.
    const unknown = await runCli(['no-such-command'], { DATABASE_URL: 'sqlite::memory:' });
    expect(unknown.stderr).toMatch(/commands: .*\bworkspace list\b/);
  });
});
