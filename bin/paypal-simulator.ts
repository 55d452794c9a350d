import { runPaypalSimulatorCli } from '../simulators/paypal/cli.ts'
import type { CliIo } from './commands.ts'

const USAGE = 'Usage: paywire paypal-simulator\n' +
  '  Environment: PAYPAL_SIMULATOR_PORT (default 8089, 0 for any), PAYPAL_SIMULATOR_CLIENT_ID,\n' +
  '  PAYPAL_SIMULATOR_CLIENT_SECRET, PAYPAL_SIMULATOR_LOG_LEVEL (default info). Stops on SIGINT or SIGTERM.\n'

/**
 * `paywire paypal-simulator`: configured by PAYPAL_SIMULATOR_PORT (default 8089),
 * PAYPAL_SIMULATOR_CLIENT_ID, PAYPAL_SIMULATOR_CLIENT_SECRET and PAYPAL_SIMULATOR_LOG_LEVEL;
 * runs until SIGINT or SIGTERM.
 */
export async function paypalSimulator (args: readonly string[], io: CliIo): Promise<number | undefined> {
  if (args.includes('--help') || args.includes('-h')) {
    io.out(USAGE)
    return 0
  }
  if (args.length > 0) {
    io.err(USAGE)
    return 2
  }
  await runPaypalSimulatorCli({ env: io.env, log: (line) => io.out(`${line}\n`), signals: io.signals })
  return undefined
}
