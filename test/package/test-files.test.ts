import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { suiteMembers } from '../_suites/run-suite.ts'
import { SUITES, type Suite } from '../_suites/suites.ts'

/*
 * Suites (test/_suites/suites.ts) run several test files in one process; `.taprc` keeps their
 * files out of tap's own list. The two must agree, or a test file would run twice — or never,
 * silently. Every test file runs exactly once: tap runs it, or exactly one suite imports it.
 */
const root = join(import.meta.dirname, '../..')
const tap = join(root, 'node_modules/.bin/tap')

t.test('every test file runs exactly once: on its own or in one suite', async (t) => {
  const everyFile = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => `test/${file}`)
    .sort()
  const runByTap = execFileSync(tap, ['list'], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean)
  const runs = new Map<string, string[]>()
  const count = (file: string, by: string) => runs.set(file, [...(runs.get(file) ?? []), by])
  for (const file of runByTap) count(file, 'tap')
  for (const [name, suite] of Object.entries(SUITES as Record<string, Suite>)) {
    const members = suiteMembers(suite)
    t.ok(members.length > 1, `suite ${name} runs more than one file`)
    for (const file of members) count(file, `suite ${name}`)
    for (const file of suite.alone ?? []) {
      t.ok(runByTap.includes(`${suite.folder}/${file}`), `${suite.folder}/${file} is alone: tap runs it`)
    }
  }
  t.same(everyFile.filter((file) => runs.get(file)?.length !== 1).map((file) => ({ file, runBy: runs.get(file) ?? [] })), [])
  t.same([...runs.keys()].filter((file) => !everyFile.includes(file)), [], 'nothing runs that is not a test file')
})
