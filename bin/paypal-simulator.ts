import { runPaypalSimulatorCli, SimulatorSettingError } from '../simulators/paypal/cli.ts'
import { CliUsageError, parseCommandArguments, runCommand } from './arguments.ts'
import type { CliIo } from './commands.ts'

const USAGE = `Usage: paywire paypal-simulator [--port <port>]

Serves the PayPal simulator on 127.0.0.1: Payments v1 (for the paypal_rest gateway) and Orders v2 /
Payments v2 (for paypal_checkout), with OAuth, the buyer's approval pages, signed webhooks and
disputes. Runs until SIGINT or SIGTERM.

  --port <port>   the port to listen on (default 8089, 0 for any free port); wins over PAYPAL_SIMULATOR_PORT

Environment: PAYPAL_SIMULATOR_PORT, PAYPAL_SIMULATOR_CLIENT_ID, PAYPAL_SIMULATOR_CLIENT_SECRET,
PAYPAL_SIMULATOR_LOG_LEVEL (fatal, error, warn, info (default), debug, trace, silent).
`

/** `paywire paypal-simulator [--port <port>]`: runs until a signal; a bad setting or a busy port is one line and exit code 2 or 1. */
export async function paypalSimulator (args: readonly string[], io: CliIo): Promise<number | undefined> {
  return await runCommand(io, async () => {
    const { values } = parseCommandArguments('paypal-simulator', args, { port: { type: 'string' } })
    if (values.help === true) {
      io.out(USAGE)
      return 0
    }
    try {
      await runPaypalSimulatorCli({ env: io.env, log: (line) => io.out(`${line}\n`), signals: io.signals, port: values.port as string | undefined })
    } catch (error) {
      if (error instanceof SimulatorSettingError) throw new CliUsageError(`paywire paypal-simulator: ${error.message}`, error.exitCode)
      throw error
    }
    return undefined
  })
}
