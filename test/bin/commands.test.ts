import t from 'tap'
import { COMMANDS, EXIT_USAGE, runCli, usage, type CliIo } from '../../bin/commands.ts'

function io (env: Record<string, string | undefined> = {}) {
  const out: string[] = []
  const err: string[] = []
  const listeners = new Map<string, () => void>()
  const cli: CliIo = {
    out: (text) => { out.push(text) },
    err: (text) => { err.push(text) },
    env,
    signals: { once: (signal, listener) => listeners.set(signal, listener) }
  }
  return { cli, out, err, listeners }
}

t.test('without a command, or with --help, the usage lists every subcommand', async (t) => {
  for (const [argv, code] of [[[], EXIT_USAGE], [['--help'], 0], [['help'], 0]] as const) {
    const { cli, out } = io()
    t.equal(await runCli(argv, cli), code)
    t.equal(out.join(''), usage())
  }
  for (const name of Object.keys(COMMANDS)) t.match(usage(), new RegExp(`^  ${name} +\\S`, 'm'))
})

t.test('an unknown command is refused with the usage, on stderr', async (t) => {
  for (const name of ['migrat', 'toString']) {
    const { cli, out, err } = io()
    t.equal(await runCli([name], cli), EXIT_USAGE)
    t.same(out, [])
    t.match(err.join(''), `paywire: unknown command "${name}".`)
  }
  const typo = io()
  await runCli(['migrat'], typo.cli)
  t.match(typo.err.join(''), /^paywire: unknown command "migrat"\. Did you mean "?migrate"?\?/)
})

t.test('doctor runs the doctor with the remaining arguments', async (t) => {
  const noDeprecation = process.noDeprecation
  t.teardown(() => { process.noDeprecation = noDeprecation })
  const { cli, out } = io()
  t.equal(await runCli(['doctor', '--help'], cli), 0)
  t.match(out.join(''), /^Usage: paywire doctor <module>\[#export\] \[--strict\]/)
})

t.test('paypal-simulator serves the simulator until SIGINT; its help names both PayPal APIs', async (t) => {
  const help = io()
  t.equal(await runCli(['paypal-simulator', '--help'], help.cli), 0)
  t.match(help.out.join(''), 'PAYPAL_SIMULATOR_PORT')
  t.match(help.out.join(''), /Payments v1 \(for the paypal_rest gateway\) and Orders v2/)
  t.match(usage(), /paypal-simulator +serve the PayPal simulator \(Payments v1 and Orders v2\)/)
  const wrong = io()
  t.equal(await runCli(['paypal-simulator', 'now'], wrong.cli), EXIT_USAGE)
  t.equal(wrong.err.join(''), 'paywire paypal-simulator: unexpected argument "now" (see paywire paypal-simulator --help)\n')

  const { cli, out, listeners } = io({ PAYPAL_SIMULATOR_PORT: '0', PAYPAL_SIMULATOR_LOG_LEVEL: 'silent' })
  t.equal(await runCli(['paypal-simulator'], cli), undefined, 'no exit code: the server keeps running')
  const base = /listening on (\S+)/.exec(out.join(''))?.[1] as string
  t.equal((await fetch(`${base}/v1/oauth2/token`, { method: 'POST' })).status, 401)
  listeners.get('SIGINT')?.()
  // The listener closes the server without waiting: poll until the port refuses connections.
  while (await fetch(base).then(() => true, () => false)) await new Promise((resolve) => setImmediate(resolve))
  t.match(out.join(''), 'shutting down')
})
