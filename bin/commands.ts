/*
 * The `paywire` command's subcommands. Each one is loaded only when it runs, so `paywire
 * doctor` never loads the PayPal simulator (nor Fastify's server) and a new subcommand is
 * one line in COMMANDS.
 */

import { didYouMean } from '../plugins/core/engine/suggest.ts'

export interface CliIo {
  out: (text: string) => void
  err: (text: string) => void
  env: Record<string, string | undefined>
  /** Where SIGINT/SIGTERM arrive: `process` in the bin. */
  signals: { once: (signal: 'SIGINT' | 'SIGTERM', listener: () => void) => unknown }
  cwd?: string
}

export interface Command {
  /** One line for `paywire --help`. */
  summary: string
  /** The exit code, or undefined for a command that keeps running (a server) until a signal. */
  run: (args: readonly string[], io: CliIo) => Promise<number | undefined>
}

export const COMMANDS: Readonly<Record<string, Command>> = {
  doctor: { summary: 'build every gateway of a Paywire setup; list deprecations and errors', run: async (args, io) => (await import('./doctor.ts')).doctor(args, io) },
  migrate: { summary: 'apply Paywire\'s PostgreSQL migrations to the database on DATABASE_URL', run: async (args, io) => (await import('./migrate.ts')).migrate(args, io) },
  'paypal-simulator': { summary: 'serve the PayPal simulator (Payments v1 and Orders v2) on 127.0.0.1', run: async (args, io) => (await import('./paypal-simulator.ts')).paypalSimulator(args, io) },
  'stripe-simulator': { summary: 'serve the Stripe simulator (PaymentIntents, Checkout, webhooks) on 127.0.0.1', run: async (args, io) => (await import('./stripe-simulator.ts')).stripeSimulator(args, io) }
}

export const EXIT_USAGE = 2

export function usage (): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length))
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`)
  return `Usage: paywire <command> [arguments]\n\nCommands:\n${lines.join('\n')}\n\nRun paywire <command> --help for a command's own arguments.\n`
}

/** The CLI without the process: picks the subcommand and runs it. */
export async function runCli (argv: readonly string[], io: CliIo): Promise<number | undefined> {
  const [name, ...args] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(usage())
    return name === undefined ? EXIT_USAGE : 0
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (command === undefined) {
    io.err(`paywire: unknown command "${name}".${didYouMean(name, Object.keys(COMMANDS))}\n\n${usage()}`)
    return EXIT_USAGE
  }
  return await command.run(args, io)
}
