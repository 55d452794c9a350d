import { CliSettingError, runStripeSimulatorCli } from '../simulators/stripe/cli.ts'
import { CliUsageError, parseCommandArguments, runCommand } from './arguments.ts'
import type { CliIo } from './commands.ts'

const USAGE = `Usage: paywire stripe-simulator [--port <port>]

Serves the Stripe simulator on 127.0.0.1: PaymentIntents, Checkout Sessions with their hosted
page, charges, refunds, disputes, events and signed webhooks, on a simulated clock. Runs until
SIGINT or SIGTERM.

  --port <port>   the port to listen on (default 12111, 0 for any free port); wins over STRIPE_SIMULATOR_PORT

Environment: STRIPE_SIMULATOR_PORT, STRIPE_SIMULATOR_SECRET_KEY (sk_test_…), STRIPE_SIMULATOR_WEBHOOK_URL
and STRIPE_SIMULATOR_WEBHOOK_SECRET (whsec_…, generated when left out), STRIPE_SIMULATOR_LOG_LEVEL
(fatal, error, warn, info (default), debug, trace, silent).
`

/** `paywire stripe-simulator [--port <port>]`: runs until a signal; a bad setting is one line and exit code 2, a busy port exit code 1. */
export async function stripeSimulator (args: readonly string[], io: CliIo): Promise<number | undefined> {
  return await runCommand(io, async () => {
    const { values } = parseCommandArguments('stripe-simulator', args, { port: { type: 'string' } })
    if (values.help === true) {
      io.out(USAGE)
      return 0
    }
    const env = values.port === undefined ? io.env : { ...io.env, STRIPE_SIMULATOR_PORT: values.port as string }
    try {
      await runStripeSimulatorCli({ env, log: (line) => io.out(`${line}\n`), signals: io.signals })
    } catch (error) {
      if (error instanceof CliSettingError) throw new CliUsageError(`paywire stripe-simulator: ${error.message}`, error.exitCode)
      throw error
    }
    return undefined
  })
}
