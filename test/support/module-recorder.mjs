// Loaded with `node --import` ahead of a service process: appends every module the process loads to the file
// named by MODULE_RECORD_FILE, ES modules (static and dynamic imports) through a resolve hook and CommonJS
// modules through Module._load, so a test can show what a process never loaded.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const file = process.env.MODULE_RECORD_FILE;
if (file) {
  register('./module-recorder.hooks.mjs', import.meta.url, { data: { file } });
  const Module = createRequire(import.meta.url)('node:module');
  const load = Module._load;
  Module._load = function recordedLoad(request, ...rest) {
    appendFileSync(file, `require ${request}\n`);
    return load.call(this, request, ...rest);
  };
}
