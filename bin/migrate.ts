import { parseArgs } from 'node:util'
import { runMigrations } from '../plugins/postgres/migrate-command.ts'
import type { CliIo } from './commands.ts'

const USAGE = `Usage: paywire migrate [--schema <name>]

Applies Paywire's PostgreSQL migrations to the database on DATABASE_URL, in the schema
given (default "paywire"). Idempotent; exit code 0 when the schema is up to date afterwards.
`

/** `paywire migrate [--schema <name>]`: the reason of a failure on stderr, never the password. */
export async function migrate (args: readonly string[], io: CliIo): Promise<number> {
  let schema: string | undefined
  try {
    const { values } = parseArgs({ args: [...args], options: { schema: { type: 'string' }, help: { type: 'boolean', short: 'h' } } })
    if (values.help === true) {
      io.out(USAGE)
      return 0
    }
    schema = values.schema
  } catch (error) {
    io.err(`paywire migrate: ${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  try {
    await runMigrations({ schema, connectionString: io.env.DATABASE_URL ?? '', log: (line) => io.out(`${line}\n`) })
    return 0
  } catch (error) {
    const coded = error as Error & { code?: string }
    io.err(`${coded.code ?? coded.name}: ${coded.message.split('\n')[0] ?? ''}\n`)
    return 1
  }
}
