import t from 'tap'
import { stripeSimulator } from '../../../bin/stripe-simulator.ts'
import { runCli } from '../../../bin/commands.ts'
import { readSettings } from '../../../simulators/stripe/cli.ts'

/* `npx paywire stripe-simulator`: settings from the environment, one line and exit 2 when wrong. */

function io (env: Record<string, string | undefined> = {}): { out: string[], err: string[], signals: Map<string, () => void>, env: Record<string, string | undefined>, write: { out: (text: string) => void, err: (text: string) => void, env: Record<string, string | undefined>, signals: { once: (signal: 'SIGINT' | 'SIGTERM', listener: () => void) => unknown } } } {
  const out: string[] = []
  const err: string[] = []
  const signals = new Map<string, () => void>()
  return { out, err, signals, env, write: { out: (text) => { out.push(text) }, err: (text) => { err.push(text) }, env, signals: { once: (signal, listener) => signals.set(signal, listener) } } }
}

t.test('--help, and arguments it does not take', async (t) => {
  const help = io()
  t.equal(await runCli(['stripe-simulator', '--help'], help.write), 0)
  t.match(help.out.join(''), /--port <port> +the port to listen on \(default 12111/)
  t.match(help.out.join(''), /STRIPE_SIMULATOR_PORT/)
  const listed = io()
  await runCli(['--help'], listed.write)
  t.match(listed.out.join(''), /stripe-simulator +serve the Stripe simulator/)
  const extra = io()
  t.equal(await stripeSimulator(['now'], extra.write), 2)
  t.match(extra.err.join(''), /^paywire stripe-simulator: unexpected argument "now"/)
  const misspelt = io()
  t.equal(await stripeSimulator(['--prot', '1'], misspelt.write), 2)
  t.match(misspelt.err.join(''), /unknown option --prot: did you mean --port\?/)
  const badPort = io()
  t.equal(await stripeSimulator(['--port', 'http'], badPort.write), 2)
  t.match(badPort.err.join(''), /STRIPE_SIMULATOR_PORT must be a TCP port/)
})

t.test('bad settings: one line on stderr, exit code 2', async (t) => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ STRIPE_SIMULATOR_PORT: 'http' }, /STRIPE_SIMULATOR_PORT must be a TCP port/],
    [{ STRIPE_SIMULATOR_PORT: '70000' }, /STRIPE_SIMULATOR_PORT/],
    [{ STRIPE_SIMULATOR_SECRET_KEY: 'sk_live_123' }, /STRIPE_SIMULATOR_SECRET_KEY must be a test secret key/],
    [{ STRIPE_SIMULATOR_WEBHOOK_URL: 'ftp://x' }, /STRIPE_SIMULATOR_WEBHOOK_URL must be an http\(s\) URL/],
    [{ STRIPE_SIMULATOR_WEBHOOK_URL: 'http://127.0.0.1:9/h', STRIPE_SIMULATOR_WEBHOOK_SECRET: 'secret' }, /whsec_/],
    [{ STRIPE_SIMULATOR_WEBHOOK_SECRET: 'whsec_abc' }, /needs STRIPE_SIMULATOR_WEBHOOK_URL/],
    [{ STRIPE_SIMULATOR_LOG_LEVEL: 'loud' }, /STRIPE_SIMULATOR_LOG_LEVEL must be one of/]
  ]
  for (const [env, message] of cases) {
    const run = io(env)
    t.equal(await stripeSimulator([], run.write), 2, JSON.stringify(env))
    t.equal(run.err.length, 1)
    t.match(run.err[0], message)
    t.match(run.err[0], /^paywire stripe-simulator: [^\n]+\n$/, 'one line, no stack')
  }
  t.same(readSettings({}), { port: 12111, apiKey: 'sk_test_simulator', webhookUrl: undefined, webhookSecret: undefined, logLevel: 'info' })
})

t.test('runs on a free port, prints where it is, and stops on SIGTERM', async (t) => {
  const run = io({ STRIPE_SIMULATOR_PORT: '0', STRIPE_SIMULATOR_LOG_LEVEL: 'silent', STRIPE_SIMULATOR_WEBHOOK_URL: 'http://127.0.0.1:9/hooks', STRIPE_SIMULATOR_SECRET_KEY: 'sk_test_cli_key' })
  t.equal(await stripeSimulator([], run.write), undefined)
  const printed = run.out.join('')
  const origin = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(printed)?.[1] as string
  t.ok(origin)
  t.match(printed, /Secret key: STRIPE_SIMULATOR_SECRET_KEY/)
  t.notMatch(printed, /sk_test_cli_key/, 'a chosen key is not printed')
  t.match(printed, /Webhooks go to http:\/\/127\.0\.0\.1:9\/hooks, signed with whsec_/)
  const answer = await fetch(`${origin}/v1/events`, { headers: { authorization: 'Bearer sk_test_cli_key' } })
  t.equal(answer.status, 200)
  run.signals.get('SIGTERM')?.()
  t.match(run.out.join(''), /shutting down/)

  const busy = io({ STRIPE_SIMULATOR_PORT: new URL(origin).port, STRIPE_SIMULATOR_LOG_LEVEL: 'silent' })
  const second = io({ STRIPE_SIMULATOR_PORT: 'not-a-port', STRIPE_SIMULATOR_LOG_LEVEL: 'silent', STRIPE_SIMULATOR_WEBHOOK_URL: 'http://127.0.0.1:9/h', STRIPE_SIMULATOR_WEBHOOK_SECRET: 'whsec_given' })
  t.equal(await stripeSimulator(['--port', '0'], second.write), undefined, '--port wins over STRIPE_SIMULATOR_PORT')
  t.match(second.out.join(''), /signed with STRIPE_SIMULATOR_WEBHOOK_SECRET/)
  t.match(second.out.join(''), /Secret key: sk_test_simulator/)
  const port = /127\.0\.0\.1:(\d+)/.exec(second.out.join(''))?.[1] as string
  busy.env.STRIPE_SIMULATOR_PORT = port
  t.equal(await stripeSimulator([], busy.write), 1, 'a port in use: one line, exit code 1')
  t.match(busy.err[0], /port \d+ on 127\.0\.0\.1 is in use: choose another with --port/)
  second.signals.get('SIGINT')?.()
})
