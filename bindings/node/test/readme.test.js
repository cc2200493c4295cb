'use strict';
// The README's "Using it from Node.js" examples, run as written: each
// ```js block is a file in a new project whose node_modules/tocsin is this
// package (an ES module if it imports; a file of node:test tests runs
// them itself); it must exit 0 with nothing on stderr, and where a ```text
// block follows it, print exactly that.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const README = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'README.md'), 'utf8');
const section = README.split(/^## /m).find((part) => part.startsWith('Using it from Node.js\n'));

/** [{ code, output (or null) }] in the section's order. */
function examples() {
  const blocks = [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```\n/gm)].map((m) => ({ lang: m[1], text: m[2] }));
  const found = [];
  blocks.forEach((block, i) => {
    if (block.lang !== 'js') return;
    const next = blocks[i + 1];
    found.push({ code: block.text, output: next?.lang === 'text' ? next.text : null });
  });
  return found;
}

const project = fs.mkdtempSync(path.join(os.tmpdir(), 'tocsin-readme-'));
fs.mkdirSync(path.join(project, 'node_modules'));
fs.symlinkSync(path.join(__dirname, '..'), path.join(project, 'node_modules', 'tocsin'));
test.after(() => fs.rmSync(project, { recursive: true, force: true }));

test('the section has its examples', () => {
  assert.ok(section, 'no "## Using it from Node.js" in README.md');
  assert.ok(examples().length >= 4, `${examples().length} js blocks`);
});

examples().forEach(({ code, output }, i) => {
  const firstLine = code.split('\n').find((line) => line.trim() && !line.startsWith('//'));
  test(`README example ${i + 1}: ${firstLine}`, () => {
    const module = /^import /m.test(code);
    const file = path.join(project, `readme-${i + 1}.${module ? 'mjs' : 'js'}`);
    fs.writeFileSync(file, code);
    const env = { ...process.env };
    delete env.NODE_TEST_CONTEXT; // a node:test file runs its own tests, not as a child of this run
    const run = spawnSync(process.execPath, [file], { cwd: project, env, encoding: 'utf8', timeout: 20_000 });
    assert.strictEqual(run.status, 0, `exit ${run.status} ${run.signal ?? ''}\n${run.stdout}${run.stderr}`);
    assert.strictEqual(run.stderr, '');
    if (output !== null) assert.strictEqual(run.stdout, output);
  });
});
