// npm run paypal-simulator: a local PayPal REST (Payments v1) stand-in for development and CI.
// Environment: PAYPAL_SIMULATOR_PORT (default 8089), PAYPAL_SIMULATOR_CLIENT_ID,
// PAYPAL_SIMULATOR_CLIENT_SECRET, PAYPAL_SIMULATOR_LOG_LEVEL (default info).
import { runPaypalSimulatorCli } from '../gateways/paypal-rest/simulator/cli.ts'

await runPaypalSimulatorCli({
  env: process.env,
  log: (line) => console.log(line),
  signals: process
})
