import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'

const root = join(import.meta.dirname, '../..')
// Run the bin the way `npm run doctor` does, but with this process's TypeScript loader (tap's,
// not tsx), so the child's coverage maps onto the same sources.
const node = [...process.execArgv, 'bin/paywire.ts', 'doctor']

t.test('paywire doctor: the CLI prints the report, no warnings, and exits with 1 under --strict on the 1.x twin', async (t) => {
  const run = promisify(execFile)(process.execPath, [...node, 'test/scripts/doctor/fixtures/v1-shop.ts', '--strict'], { cwd: root })
  const failure = await run.then(() => undefined, (error: { code: number, stdout: string, stderr: string }) => error)
  t.equal(failure?.code, 1)
  t.match(failure?.stdout, /^GATEWAY +FACTORY +STYLE +FINDING +FIX OR ERROR\nshop +acme +1\.x +PAYWIREDEP001 /)
  t.equal(failure?.stderr, '', 'the deprecations are in the report, not repeated as warnings')
})

t.test('paywire doctor without a module: one line on stderr saying what to give, exit code 2', async (t) => {
  const run = promisify(execFile)(process.execPath, node, { cwd: root })
  const failure = await run.then(() => undefined, (error: { code: number, stdout: string, stderr: string }) => error)
  t.equal(failure?.code, 2)
  t.equal(failure?.stdout, '')
  t.equal(failure?.stderr, 'paywire doctor: which module? Name the file that builds your Paywire setup: paywire doctor app.js (see paywire doctor --help)\n')
})
