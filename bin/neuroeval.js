#!/usr/bin/env node
// Command-line entry: runs the same TypeScript core as the browser app, loaded through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2), { out: process.stdout, err: process.stderr });
