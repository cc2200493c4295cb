'use strict';
// The contract's scenarios (bindings/contract/scenarios) through the
// binding: one test per file, failing with FILE:LINE as the C and Python
// runners do; then broken files, which must fail the same way.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { runScenario, Failure } = require('./scenario_run.js');

const FOLDER = path.join(__dirname, '..', '..', 'contract', 'scenarios');
const SCENARIOS = fs.readdirSync(FOLDER).filter((name) => name.endsWith('.scenario')).sort();

function scratch() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tocsin-scenario-'));
}

for (const name of SCENARIOS) {
  test(`scenario ${name}`, () => {
    const folder = scratch();
    try {
      runScenario(path.join(FOLDER, name), folder);
    } catch (error) {
      if (error instanceof Failure) assert.fail(error.message);
      throw error;
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
}

test('there are scenarios', () => {
  assert.ok(SCENARIOS.length >= 12, `${SCENARIOS.length} scenario files`);
});

const BROKEN = [
  ['countdown t 10\nstart t\nexpect state t runing\n', "bad.scenario:3: parse error: 'runing' is not valid here"],
  ['countdown t 10\nlabel t "open\n', 'bad.scenario:2: parse error: a quoted string is not closed'],
  ['start nobody\n', "bad.scenario:1: parse error: no timer named 'nobody'"],
  ['expect error OK\n', "bad.scenario:1: parse error: 'expect error' before any step"],
  ['countdown t 10\nexpect events t finish:3\n', "bad.scenario:2: parse error: 'finish:3' is not an EVENT"],
  [Buffer.from([0xff, 0x0a]), 'bad.scenario: '],
  ['countdown t 10\nstart t\nadvance 4\nexpect remaining t 5\n', 'bad.scenario:4: expect remaining t 5: expected 5, got 6'],
  ['countdown bad nan\nexpect error ENOENT\n', 'bad.scenario:2: expect error ENOENT: expected ENOENT, got EINVAL'],
];

for (const [text, message] of BROKEN) {
  test(`a broken scenario fails with its file and line: ${message}`, () => {
    const folder = scratch();
    try {
      const file = path.join(folder, 'bad.scenario');
      fs.writeFileSync(file, text);
      assert.throws(() => runScenario(file, folder), (error) => error instanceof Failure && error.message.startsWith(message));
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
}
