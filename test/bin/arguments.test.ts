/*
 * The `paywire` CLI's standard: a bad value, a misspelt flag or a busy port is one line on
 * stderr saying what to change, with exit code 2 (usage) or 1 (the environment), never a stack
 * trace; every command has --help.
 */
import { once } from 'node:events'
import { writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import t from 'tap'
import { COMMANDS, runCli, type CliIo } from '../../bin/commands.ts'

async function run (argv: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number | undefined, out: string, err: string }> {
  const out: string[] = []
  const err: string[] = []
  const cli: CliIo = { out: (text) => { out.push(text) }, err: (text) => { err.push(text) }, env, signals: { once: () => {} } }
  const code = await runCli(argv, cli)
  return { code, out: out.join(''), err: err.join('') }
}

/** One line, no stack frame. */
function oneLine (t: any, text: string): void {
  t.equal(text.split('\n').filter(Boolean).length, 1, JSON.stringify(text))
  t.notMatch(text, /\n\s+at /)
}

t.test('every command answers --help on stdout with exit code 0', async (t) => {
  for (const name of Object.keys(COMMANDS)) {
    const { code, out, err } = await run([name, '--help'])
    t.equal(code, 0, name)
    t.match(out, new RegExp(`^Usage: paywire ${name}`), name)
    t.equal(err, '')
  }
})

t.test('a misspelt flag is named with the one it resembles', async (t) => {
  const cases: Array<[string[], RegExp]> = [
    [['migrate', '--shema', 'shop'], /^paywire migrate: unknown option --shema: did you mean --schema\? \(see paywire migrate --help\)\n$/],
    [['doctor', 'app.js', '--stict'], /^paywire doctor: unknown option --stict: did you mean --strict\?/],
    [['paypal-simulator', '--prot', '9000'], /^paywire paypal-simulator: unknown option --prot: did you mean --port\?/],
    [['stripe-simulator', '--potr=9000'], /^paywire stripe-simulator: unknown option --potr: did you mean --port\?/],
    [['migrate', '--verbose'], /^paywire migrate: unknown option --verbose \(see paywire migrate --help\)\n$/]
  ]
  for (const [argv, message] of cases) {
    const { code, err } = await run(argv)
    t.equal(code, 2, argv.join(' '))
    t.match(err, message)
    oneLine(t, err)
  }
  const missing = await run(['migrate', '--schema'])
  t.equal(missing.code, 2)
  t.match(missing.err, /^paywire migrate: .*--schema.* \(see paywire migrate --help\)\n$/)
})

t.test('bad settings of the simulators: one line naming the setting, exit code 2', async (t) => {
  const cases: Array<[string[], Record<string, string>, RegExp]> = [
    [['paypal-simulator'], { PAYPAL_SIMULATOR_PORT: 'abc' }, /^paywire paypal-simulator: PAYPAL_SIMULATOR_PORT must be a TCP port from 0 \(any free port\) to 65535, got "abc"\n$/],
    [['paypal-simulator', '--port', '70000'], {}, /^paywire paypal-simulator: --port must be a TCP port/],
    [['paypal-simulator'], { PAYPAL_SIMULATOR_LOG_LEVEL: 'loud' }, /^paywire paypal-simulator: PAYPAL_SIMULATOR_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"\n$/],
    [['stripe-simulator', '--port', 'abc'], {}, /^paywire stripe-simulator: STRIPE_SIMULATOR_PORT must be a TCP port/],
    [['stripe-simulator'], { STRIPE_SIMULATOR_LOG_LEVEL: 'loud' }, /^paywire stripe-simulator: STRIPE_SIMULATOR_LOG_LEVEL must be one of/]
  ]
  for (const [argv, env, message] of cases) {
    const { code, err, out } = await run(argv, env)
    t.equal(code, 2, `${argv.join(' ')} ${JSON.stringify(env)}`)
    t.match(err, message)
    oneLine(t, err)
    t.equal(out, '')
  }
})

t.test('a busy port: one line saying how to choose another', async (t) => {
  const busy = createServer()
  busy.listen(0, '127.0.0.1')
  await once(busy, 'listening')
  t.teardown(() => { busy.close() })
  const { port } = busy.address() as AddressInfo
  const paypal = await run(['paypal-simulator', '--port', String(port)], { PAYPAL_SIMULATOR_LOG_LEVEL: 'silent' })
  t.equal(paypal.code, 1)
  t.equal(paypal.err, `paywire paypal-simulator: port ${port} on 127.0.0.1 is in use: choose another with --port or PAYPAL_SIMULATOR_PORT (0 for any free port)\n`)
  const stripe = await run(['stripe-simulator'], { STRIPE_SIMULATOR_PORT: String(port), STRIPE_SIMULATOR_LOG_LEVEL: 'silent' })
  t.equal(stripe.code, 1)
  t.equal(stripe.err, `paywire stripe-simulator: port ${port} on 127.0.0.1 is in use: choose another with --port or STRIPE_SIMULATOR_PORT (0 for any free port)\n`)
  oneLine(t, stripe.err)
})

t.test('paywire doctor on a module Node cannot load by itself says how to load it', async (t) => {
  const dir = t.testdir({})
  const file = join(dir, 'setup.cts')
  writeFileSync(file, 'module.exports = {}\n')
  const { code, err } = await run(['doctor', file])
  t.equal(code, 2)
  t.match(err, /Cannot load the Paywire setup from .*setup\.cts/)
  t.match(err, `To check a TypeScript setup, load it through tsx: NODE_OPTIONS=--import=tsx npx paywire doctor ${file}`)
  const many = await run(['doctor', 'a.js', 'b.js'])
  t.equal(many.err, 'paywire doctor: one module at a time, got 2 (see paywire doctor --help)\n')
})
