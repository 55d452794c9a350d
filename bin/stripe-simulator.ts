import { CliSettingError, runStripeSimulatorCli } from '../simulators/stripe/cli.ts'
import type { CliIo } from './commands.ts'

const USAGE = 'Usage: paywire stripe-simulator\n' +
  '  Environment: STRIPE_SIMULATOR_PORT (default 12111, 0 for any), STRIPE_SIMULATOR_SECRET_KEY (sk_test_…),\n' +
  '  STRIPE_SIMULATOR_WEBHOOK_URL and STRIPE_SIMULATOR_WEBHOOK_SECRET (whsec_…, generated when left out),\n' +
  '  STRIPE_SIMULATOR_LOG_LEVEL (default info). Stops on SIGINT or SIGTERM.\n'

/** `paywire stripe-simulator`: runs until SIGINT or SIGTERM; a bad setting is one line on stderr and exit code 2. */
export async function stripeSimulator (args: readonly string[], io: CliIo): Promise<number | undefined> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(USAGE)
    return 0
  }
  if (args.length > 0) {
    io.err(USAGE)
    return 2
  }
  try {
    await runStripeSimulatorCli({ env: io.env, log: (line) => io.out(`${line}\n`), signals: io.signals })
  } catch (error) {
    if (!(error instanceof CliSettingError)) throw error
    io.err(`paywire stripe-simulator: ${error.message}\n`)
    return 2
  }
  return undefined
}
