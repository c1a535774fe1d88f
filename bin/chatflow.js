#!/usr/bin/env node
import module from 'node:module';
import v8 from 'node:v8';

// The HTTP client's parser is WebAssembly; V8's optimising tier compiles it on background
// threads that the process then waits for at exit (~150-300 ms a command). The baseline
// compiler is plenty for a CLI's few responses.
v8.setFlagsFromString('--liftoff-only');
// Compile cache (Node 22.1+) makes later starts faster; Node 20 simply runs without it.
module.enableCompileCache?.();
const { main } = await import('../dist/cli/main.js');
process.exitCode = await main();
