'use strict';
// The addon as a user gets it: `npm pack`, then `npm install` of the
// tarball in a new project, offline (node-gyp builds it against the
// installed headers: npm_config_nodedir=/usr), then a script outside the
// source tree that loads it by name, CommonJS and ESM, with no
// TOCSIN_NODE_ADDON. libtocsin is found by pkg-config (PKG_CONFIG_PATH,
// set by `make test-node` to the tree's out/CONFIG/lib/pkgconfig).
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

test('npm pack, npm install --offline, then require and import by name', { timeout: 120_000 }, (t) => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'tocsin-npm-'));
  t.after(() => fs.rmSync(project, { recursive: true, force: true }));
  const env = { ...process.env, npm_config_nodedir: '/usr', npm_config_cache: path.join(project, '.npm'), npm_config_update_notifier: 'false' };
  delete env.TOCSIN_NODE_ADDON;
  const run = (command, args) => execFileSync(command, args, { cwd: project, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const tarball = run('npm', ['pack', '--silent', path.join(__dirname, '..')]).trim().split('\n').pop();
  fs.writeFileSync(path.join(project, 'package.json'), '{ "name": "user", "version": "1.0.0", "private": true }\n');
  run('npm', ['install', '--offline', '--no-audit', '--no-fund', `./${tarball}`]);
  assert.ok(fs.existsSync(path.join(project, 'node_modules', 'tocsin', 'build', 'Release', 'tocsin.node')));
  assert.ok(fs.existsSync(path.join(project, 'node_modules', 'tocsin', 'index.d.ts')));
  fs.writeFileSync(path.join(project, 'user.js'), "const { Engine } = require('tocsin');\n" +
    "new Engine().countdown(0.05).start().finished.then((event) => console.log('cjs', event.type));\n");
  fs.writeFileSync(path.join(project, 'user.mjs'), "import { Engine, version } from 'tocsin';\n" +
    "const event = await new Engine().countdown(0.05).start().finished;\nconsole.log('esm', event.type, version);\n");
  assert.strictEqual(run(process.execPath, ['user.js']), 'cjs finish\n');
  assert.match(run(process.execPath, ['user.mjs']), /^esm finish \d+\.\d+\.\d+\n$/);
});
