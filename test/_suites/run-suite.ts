// Imports a suite's test files into this process, in order (see suites.ts for why).
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { SUITES, type Suite, type SuiteName } from './suites.ts'

const ROOT = join(import.meta.dirname, '..', '..')

/** The files a suite runs, repository-relative, sorted as tap sorts a folder. */
export function suiteMembers (suite: Suite): string[] {
  const alone = new Set(suite.alone ?? [])
  const nested = Object.values(SUITES as Record<string, Suite>)
    .map((other) => other.folder)
    .filter((folder) => folder.startsWith(`${suite.folder}/`))
  return readdirSync(join(ROOT, suite.folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts') && !alone.has(file))
    .map((file) => `${suite.folder}/${file}`)
    .filter((file) => !nested.some((folder) => file.startsWith(`${folder}/`)))
    .sort((a, b) => a.localeCompare(b, 'en'))
}

/**
 * Runs a suite. The files are imported inside one subtest of the root: a file's top-level code
 * may await (a server, a connection), and tap ends a root test whose queue is empty, which would
 * drop the later files' tests. Each file's top-level tests queue on the root behind that subtest
 * and run after it, in file order.
 */
export async function runSuite (name: SuiteName, options: { perFileTimeoutMs?: number } = {}): Promise<void> {
  const members = suiteMembers(SUITES[name])
  // tap's timeout is per process; a suite gets each member's share.
  t.setTimeout(members.length * (options.perFileTimeoutMs ?? 60_000))
  await t.test(`suite ${name}: ${members.length} files`, async (t) => {
    for (const file of members) {
      await import(pathToFileURL(join(ROOT, file)).href)
      t.pass(`loaded ${file}`)
    }
  })
}
