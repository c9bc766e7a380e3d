// The start-up warning when the resident tier is on and node lacks the young-generation flag
// (src/start/node-flags.ts), and the flag `npm start` gives.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { YOUNG_GENERATION_FLAG, youngGenerationAdvice } from '../../src/start/node-flags';

describe('node flags of the service', () => {
  it('warns when the preload is on and node has no --min-semi-space-size', () => {
    expect(youngGenerationAdvice([], true)).toMatch(
      /REDIRECT_CACHE_PRELOAD is on but node was started without --min-semi-space-size=16/,
    );
    expect(youngGenerationAdvice(['--enable-source-maps'], true)).not.toBeNull();
  });
  it('says nothing when the flag is given, in either spelling, or the preload is off', () => {
    expect(youngGenerationAdvice([YOUNG_GENERATION_FLAG], true)).toBeNull();
    expect(youngGenerationAdvice(['--min_semi_space_size=32'], true)).toBeNull();
    expect(youngGenerationAdvice([], false)).toBeNull();
  });
  it('is given by npm start and the systemd unit', () => {
    const pkg = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(pkg.scripts.start.split(' ')).toContain(YOUNG_GENERATION_FLAG);
    const unit = fs.readFileSync(new URL('../../deploy/systemd/shortlink@.service', import.meta.url), 'utf8');
    expect(unit).toMatch(
      new RegExp(`^ExecStart=.*/usr/bin/node ${YOUNG_GENERATION_FLAG} /opt/shortlink/bin/shortlink\\.mjs serve$`, 'm'),
    );
  });
});
