'use strict';
// index.d.ts checked by TypeScript's own compiler: a small typed program
// (test/types/program.ts) must compile under --strict, and its lines
// marked @ts-expect-error must not (so the types are not too loose).
// tsc is Debian's node-typescript (scripts/install-deps.sh installs it).
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

test('tsc --noEmit accepts index.d.ts with a typed program', () => {
  const run = spawnSync('tsc', ['-p', path.join(__dirname, 'types', 'tsconfig.json')], { encoding: 'utf8' });
  assert.ifError(run.error); // ENOENT: no tsc (apt-get install node-typescript)
  assert.strictEqual(run.status, 0, run.stdout + run.stderr);
});
