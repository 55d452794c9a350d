#!/usr/bin/env node
// The `paywire` command: doctor, migrate, paypal-simulator, stripe-simulator (see bin/commands.ts).
import { runCli } from './commands.ts'

const code = await runCli(process.argv.slice(2), {
  out: (text) => { process.stdout.write(text) },
  err: (text) => { process.stderr.write(text) },
  env: process.env,
  signals: process
})
if (code !== undefined) process.exitCode = code
