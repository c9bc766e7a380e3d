#!/usr/bin/env node
// The `shortlink` command: serve and the operator commands. TypeScript sources run through
// tsx's loader so a fresh `npm ci` needs no build step.
import { register } from 'tsx/esm/api';
register();
await import('../src/start/cli.ts');
