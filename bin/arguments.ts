import { parseArgs, type ParseArgsConfig } from 'node:util'
import { closestName } from '../plugins/core/engine/suggest.ts'
import type { CliIo } from './commands.ts'

/** A bad argument or setting: one line on stderr naming what to change, then the command's exit code. */
export class CliUsageError extends Error {
  readonly exitCode: number

  constructor (message: string, exitCode = 2) {
    super(message)
    this.exitCode = exitCode
  }
}

type Options = NonNullable<ParseArgsConfig['options']>

/** What `paywire <command> …` was given: its flags (every command takes --help) and its positionals. */
export interface ParsedArguments {
  values: Record<string, string | boolean | undefined>
  positionals: string[]
}

/**
 * Parses a command's arguments strictly. An unknown flag is named with the nearest known one
 * ("unknown option --shema: did you mean --schema?"), and a flag missing its value or a value
 * given to none says so: each as a CliUsageError, never Node's multi-line parse error.
 */
export function parseCommandArguments (command: string, args: readonly string[], options: Options, allowPositionals = false): ParsedArguments {
  const all: Options = { ...options, help: { type: 'boolean', short: 'h' } }
  try {
    const { values, positionals } = parseArgs({ args: [...args], options: all, allowPositionals, strict: true })
    return { values: values as ParsedArguments['values'], positionals }
  } catch (error) {
    const code = (error as { code?: string }).code
    const flag = /'(-{1,2}[^'\s]+)'/.exec((error as Error).message)?.[1]
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
      const name = flag.replace(/^-+/, '').split('=')[0] as string
      const near = closestName(name, Object.keys(all))
      throw new CliUsageError(`paywire ${command}: unknown option ${flag}${near === undefined ? '' : `: did you mean --${near}?`} (see paywire ${command} --help)`)
    }
    if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      throw new CliUsageError(`paywire ${command}: unexpected argument ${JSON.stringify(args.find((arg) => !arg.startsWith('-')))} (see paywire ${command} --help)`)
    }
    throw new CliUsageError(`paywire ${command}: ${(error as Error).message.split('\n')[0] ?? ''} (see paywire ${command} --help)`)
  }
}

/** A TCP port from a flag or an environment variable: 0 (any free port) to 65535. */
export function tcpPort (name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback
  const port = Number(value)
  if (!/^\d+$/.test(value) || port > 65535) throw new CliUsageError(`${name} must be a TCP port from 0 (any free port) to 65535, got ${JSON.stringify(value)}`)
  return port
}

/** Runs a command body, turning its CliUsageError into the one line and exit code the CLI promises. */
export async function runCommand (io: CliIo, body: () => Promise<number | undefined>): Promise<number | undefined> {
  try {
    return await body()
  } catch (error) {
    if (!(error instanceof CliUsageError)) throw error
    io.err(`${error.message}\n`)
    return error.exitCode
  }
}
