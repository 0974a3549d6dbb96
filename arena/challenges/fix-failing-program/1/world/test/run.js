// Runs every test, prints one line each, and exits 1 when any failed.
const tests = require('./calc.test.js');

let failed = 0;
for (const [name, fn] of tests) {
  try {
    fn();
    console.log(`ok   ${name}`);
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}: ${error.message}`);
  }
}
if (failed > 0) {
  console.log(`${failed} of ${tests.length} tests failed`);
  sandbox.exit(1);
}
console.log(`all tests passed (${tests.length})`);
