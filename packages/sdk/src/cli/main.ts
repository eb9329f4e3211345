#!/usr/bin/env node
/** `wallet`: the command-line client of the stablecoin wallet service, on the SDK (program.ts). */
import { run } from './program.js';

process.exitCode = await run(process.argv.slice(2));
