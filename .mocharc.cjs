// Tests are TypeScript, loaded through tsx; each plugin's tests live beside it.
module.exports = {
  'node-option': ['import=tsx'],
  spec: ['test/**/*.test.ts', 'plugins/**/*.test.ts'],
  timeout: 60000,
  exit: true,
};
