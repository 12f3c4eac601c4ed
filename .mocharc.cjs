// Tests are TypeScript, loaded through tsx; each plugin's tests live beside it.
// `npx mocha test/foo.test.ts` runs that file alone: the whole suite only when no file is named.
const named = process.argv.slice(2).some((arg) => /\.test\.[cm]?[jt]s$/.test(arg));
module.exports = {
  'node-option': ['import=tsx'],
  ...(named ? {} : { spec: ['test/**/*.test.ts', 'plugins/**/*.test.ts'] }),
  timeout: 60000,
  exit: true,
};
