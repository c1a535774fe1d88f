#!/usr/bin/env node
// Compile cache (Node 22.1+) makes later starts faster; Node 20 simply runs without it.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('../dist/cli/main.js');
process.exitCode = await main();
